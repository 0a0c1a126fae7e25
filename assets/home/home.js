// The home page's script (src/pages/home.tsx). The page works without it: the Worker renders every
// record, problem and limit, and the form is a plain GET. This adds, and only adds:
// - in-place lookups: the form's GET fetched and its <main> swapped in (the same page the Worker
//   renders, so the same counting: one request per lookup), kept in the history for Back;
// - copy buttons for the curl command and the answers;
// - the map's zoom (in, out, whole world, back to the point);
// - clocks that keep the local time current, and the countdown of a 429.
// It loads nothing from another host and runs under the page's CSP (no inline code, no eval).
// Type-checked as strict TypeScript through its JSDoc (tsconfig.assets.json, `npm run typecheck`).

const MAP_WIDTH = 960;
/** Narrowest view, in map units (32 times the world's width in zoom). */
const MIN_VIEW_WIDTH = MAP_WIDTH / 32;
/** The marker's radius as a share of the view's width, as the Worker draws it (src/pages/map.tsx). */
const MARKER_SHARE = 0.012;

/** Timers of the content on show, cleared when it is replaced. @type {number[]} */
let timers = [];

/** A polite live region that says what a button did ("Copied"). */
const announcer = document.createElement('p');
announcer.className = 'visually-hidden';
announcer.setAttribute('role', 'status');
document.body.append(announcer);

/** @param {string} text */
function announce(text) {
  announcer.textContent = '';
  // A new text on the next frame, so that the same words are announced again.
  requestAnimationFrame(() => {
    announcer.textContent = text;
  });
}

/** @param {ParentNode} root */
function enableCopyButtons(root) {
  for (const button of root.querySelectorAll('button.copy[data-copy]')) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const source = document.getElementById(button.dataset.copy ?? '');
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(source.textContent ?? '');
        announce('Copied to the clipboard.');
        button.textContent = 'Copied';
        timers.push(window.setTimeout(() => (button.textContent = 'Copy'), 2000));
      } catch {
        announce('The browser did not allow copying; select the text instead.');
      }
    });
  }
}

/** @param {string} box */
function parseBox(box) {
  const [x = 0, y = 0, width = MAP_WIDTH, height = 0] = box.split(' ').map(Number);
  return { x, y, width, height };
}

/** @param {ParentNode} root */
function enableMap(root) {
  const figure = root.querySelector('figure.map');
  const view = figure?.querySelector('svg.map-view');
  const controls = figure?.querySelector('.map-controls');
  if (!(figure instanceof HTMLElement) || !view || !(controls instanceof HTMLElement)) return;
  const world = parseBox(figure.dataset.world ?? '');
  const region = parseBox(figure.dataset.region ?? '');
  const marker = view.querySelector('.map-marker');
  const centre = marker instanceof SVGGElement ? { x: Number(marker.dataset.x), y: Number(marker.dataset.y) } : undefined;
  const frame = figure.querySelector('.map-inset-frame');
  let box = region;

  /** @param {{ x: number, y: number, width: number, height: number }} next */
  function show(next) {
    box = next;
    const numbers = [next.x, next.y, next.width, next.height].map((n) => Math.round(n * 100) / 100);
    view?.setAttribute('viewBox', numbers.join(' '));
    const radius = next.width * MARKER_SHARE;
    view?.querySelector('.map-marker-dot')?.setAttribute('r', String(radius));
    view?.querySelector('.map-marker-halo')?.setAttribute('r', String(radius * 2.2));
    if (frame) {
      frame.setAttribute('x', String(numbers[0]));
      frame.setAttribute('y', String(numbers[1]));
      frame.setAttribute('width', String(numbers[2]));
      frame.setAttribute('height', String(numbers[3]));
    }
  }

  /** The view of `width` map units around the point (or the current centre), kept inside the world. @param {number} width */
  function zoomTo(width) {
    const clamped = Math.min(Math.max(width, MIN_VIEW_WIDTH), world.width);
    if (clamped >= world.width) return show(world);
    const height = clamped * (region.height / region.width);
    const at = centre ?? { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const x = Math.min(Math.max(at.x - clamped / 2, 0), world.width - clamped);
    const y = Math.min(Math.max(at.y - height / 2, 0), world.height - height);
    show({ x, y, width: clamped, height });
  }

  controls.hidden = false;
  controls.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('button[data-map]') : null;
    if (!(target instanceof HTMLButtonElement)) return;
    const action = target.dataset.map;
    if (action === 'in') zoomTo(box.width / 2);
    else if (action === 'out') zoomTo(box.width * 2);
    else if (action === 'world') show(world);
    else if (action === 'region') show(region);
    announce(box === world ? 'Showing the whole world.' : `Showing ${Math.round((world.width / box.width) * 10) / 10} times the world's width.`);
  });
}

const clockFormat = (/** @type {string} */ zone) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** @param {ParentNode} root */
function enableClocks(root) {
  const clocks = [...root.querySelectorAll('time.clock[data-zone]')].filter((clock) => clock instanceof HTMLElement);
  if (clocks.length === 0) return;
  const tick = () => {
    for (const clock of clocks) {
      try {
        clock.textContent = clockFormat(clock.dataset.zone ?? '').format(Date.now());
      } catch {
        // a zone this browser does not know: the Worker's time stays
      }
    }
  };
  timers.push(window.setInterval(tick, 15_000));
}

/** @param {ParentNode} root */
function enableCountdown(root) {
  const countdown = root.querySelector('.countdown[data-seconds]');
  if (!(countdown instanceof HTMLElement)) return;
  const until = Date.now() + Number(countdown.dataset.seconds) * 1000;
  const timer = window.setInterval(() => {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left > 0) {
      countdown.textContent = left === 1 ? '1 second' : `${left} seconds`;
      return;
    }
    countdown.textContent = 'a moment: you can look up again now';
    window.clearInterval(timer);
  }, 1000);
  timers.push(timer);
}

/** @param {ParentNode} root */
function enhance(root) {
  enableCopyButtons(root);
  enableMap(root);
  enableClocks(root);
  enableCountdown(root);
}

/**
 * Shows a page's main content and footer in place of the current ones.
 * @param {{ main: string, footer: string, title: string }} page
 * @param {boolean} focus whether to move the focus to the new result's heading
 */
function showPage(page, focus) {
  const main = document.querySelector('main');
  const footer = document.querySelector('footer.site-footer');
  if (!main || !footer) return;
  for (const timer of timers) window.clearTimeout(timer);
  timers = [];
  main.innerHTML = page.main;
  footer.innerHTML = page.footer;
  document.title = page.title;
  enhance(main);
  if (focus) {
    const heading = document.getElementById('result-title');
    (heading ?? main).focus();
  }
}

/** The current page, as the history keeps it. */
function currentPage() {
  return {
    main: document.querySelector('main')?.innerHTML ?? '',
    footer: document.querySelector('footer.site-footer')?.innerHTML ?? '',
    title: document.title,
  };
}

/** Fetches the page of `url` (the Worker's own rendering) and shows it; a full navigation if that fails. @param {URL} url */
async function lookUp(url) {
  const main = document.querySelector('main');
  main?.setAttribute('aria-busy', 'true');
  try {
    const response = await fetch(url, { headers: { Accept: 'text/html' } });
    if (!(response.headers.get('Content-Type') ?? '').startsWith('text/html')) throw new Error(`not a page: ${response.status}`);
    const next = new DOMParser().parseFromString(await response.text(), 'text/html');
    const page = {
      main: next.querySelector('main')?.innerHTML ?? '',
      footer: next.querySelector('footer.site-footer')?.innerHTML ?? '',
      title: next.title,
    };
    history.pushState(page, '', url);
    showPage(page, true);
  } catch {
    window.location.assign(url);
  } finally {
    document.querySelector('main')?.removeAttribute('aria-busy');
  }
}

document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains('lookup')) return;
  event.preventDefault();
  const url = new URL(form.action);
  for (const [name, value] of new FormData(form)) url.searchParams.set(name, String(value));
  void lookUp(url);
});

document.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest('main a[href]') : null;
  if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const url = new URL(link.href);
  if (url.origin !== location.origin || url.pathname !== '/') return;
  event.preventDefault();
  void lookUp(url);
});

window.addEventListener('popstate', (event) => {
  if (event.state && typeof event.state.main === 'string') showPage(event.state, true);
});

history.replaceState(currentPage(), '');
enhance(document);
