/**
 * @module The home page's lookup form: an address (empty for one's own) and the language of the
 * names, sent as `GET /?ip=…&lang=…` so that it works without script.
 */
import { LANGUAGES, type Language } from '../geo/languages.ts';

/** Each `?lang=` language by its own name, for the language choice. */
const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  de: 'Deutsch',
  en: 'English',
  es: 'Español',
  fr: 'Français',
  ja: '日本語',
  'pt-BR': 'Português (Brasil)',
  ru: 'Русский',
  'zh-CN': '中文（简体）',
};

/** The form, its address as typed; `invalid` marks the address field when what was typed is not a public address. */
export function LookupForm({ ip, language, invalid }: { ip: string; language: Language; invalid: boolean }) {
  return (
    <search>
      <form class="lookup" method="get" action="/" aria-label="Look up an address">
        <div class="field field-ip">
          <label for="ip">IP address</label>
          <input
            id="ip"
            name="ip"
            type="text"
            value={ip}
            placeholder="e.g. 8.8.8.8 or 2001:db8::1"
            autocomplete="off"
            autocapitalize="none"
            spellcheck={false}
            aria-describedby={invalid ? 'ip-help problem-detail' : 'ip-help'}
            aria-invalid={invalid ? 'true' : undefined}
          />
          <p id="ip-help" class="help">
            IPv4 or IPv6. Leave it empty for your own address.
          </p>
        </div>
        <div class="field field-lang">
          <label for="lang">Language of the names</label>
          <select id="lang" name="lang">
            {LANGUAGES.map((code) => (
              <option value={code} lang={code} selected={code === language}>
                {LANGUAGE_NAMES[code]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Look up</button>
      </form>
    </search>
  );
}
