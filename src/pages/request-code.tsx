/**
 * @module The home page's lookup as code: the `curl` command of the single lookup it shows (every
 * field, its language) and the answers, JSON and XML or the problem, laid out for reading, each with a
 * copy button that the page's script shows.
 */
import type { Language } from '../geo/languages.ts';
import type { HomeResult } from './result.tsx';
import { indentedJson } from './view.ts';

/** The single lookup's path for an address as typed ('' for one's own), in the format, with every field and `lang` unless English. */
function apiPath(format: 'json' | 'xml', ip: string, language: Language): string {
  // Quotes encoded too, so that the command's single quotes hold whatever was typed.
  const segment = encodeURIComponent(ip).replaceAll("'", '%27');
  return `/api/v1/${format}/${segment}?fields=all${language === 'en' ? '' : `&lang=${language}`}`;
}

/** A block of code with its heading, what it answers, and a copy button (shown by the script). */
function CodeBlock({ id, title, source, text }: { id: string; title: string; source?: string; text: string }) {
  return (
    <div class={`code ${id}`}>
      <div class="code-head">
        <h3 id={`${id}-title`}>{title}</h3>
        <button type="button" class="copy" data-copy={id} aria-describedby={`${id}-title`} hidden>
          Copy
        </button>
      </div>
      {source ? <p class="code-source muted">{source}</p> : null}
      <pre id={id}>
        <code>{text}</code>
      </pre>
    </div>
  );
}

/** The request of the page's lookup as a `curl` command on this server (`origin`), and its JSON and XML answers or its problem. */
export function CodeSection({ result, origin, ip: typed, language }: { result: HomeResult; origin: string; ip: string; language: Language }) {
  if (result.kind === 'limited') return null;
  const ip = result.kind === 'record' ? result.record.ipAddress : typed;
  const curl = `curl '${origin}${apiPath('json', ip, language)}'`;
  return (
    <section class="as-code" aria-labelledby="code-title">
      <h2 id="code-title">The request as code</h2>
      <CodeBlock id="code-curl" title="curl" text={curl} />
      <div class="answers">
        {result.kind === 'record' ? (
          <>
            <CodeBlock id="code-json" title="JSON answer" source={`GET ${apiPath('json', ip, language)}: 200`} text={result.json} />
            <CodeBlock id="code-xml" title="XML answer" source={`GET ${apiPath('xml', ip, language)}: 200`} text={result.xml} />
          </>
        ) : (
          <CodeBlock
            id="code-json"
            title="JSON answer"
            source={`GET ${apiPath('json', ip, language)}: ${result.problem.status}, application/problem+json`}
            text={indentedJson(JSON.stringify(result.problem))}
          />
        )}
      </div>
    </section>
  );
}
