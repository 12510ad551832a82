// Building the page without ever parsing HTML: every string becomes a text node or an
// attribute value, so user text can never become markup (no innerHTML anywhere).
import { api } from './api.js';

/**
 * `h('a', {href: '#/', class: 'x', onclick: f}, 'text', child, [more])`: an element with
 * attributes, event listeners (`on…`) and children (strings become text nodes; null and
 * false are skipped).
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'style' || name === 'innerHTML' || name.startsWith('on')) {
      throw new Error(`h: ${name} is not allowed`);
    } else if (name === 'value' || name === 'checked') {
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends strings (as text nodes), nodes and arrays of them. */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces the children of `parent`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** `1 like`, `3 likes`. */
export function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** A `<time>` saying how long ago `iso` was (`now`, `5m`, `3h`, `2d`, or the date). */
export function timeAgo(iso) {
  const date = new Date(iso);
  const seconds = Math.max(0, (Date.now() - date.getTime()) / 1000);
  let text;
  if (Number.isNaN(seconds)) text = '';
  else if (seconds < 60) text = 'now';
  else if (seconds < 3600) text = `${Math.floor(seconds / 60)}m`;
  else if (seconds < 86400) text = `${Math.floor(seconds / 3600)}h`;
  else if (seconds < 7 * 86400) text = `${Math.floor(seconds / 86400)}d`;
  else text = date.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
  return h('time', { datetime: iso, title: date.toLocaleString() }, text);
}

// A `#hashtag` (group 1), or an `@username` (group 2) not inside a word and not another server's (`@name@domain`).
const LINKED = /#([\p{L}\p{N}_]+)|(?:^|[^\p{L}\p{N}_.])@([A-Za-z0-9._]{1,30})(?![\p{L}\p{N}_.@])/gu;

/** A caption or comment as text nodes: each `#hashtag` a link to its search, each `@username` to the profile. */
export function captionNodes(caption) {
  const nodes = [];
  let last = 0;
  for (const match of caption.matchAll(LINKED)) {
    const [text, tag, mention] = match;
    // An @ inside a word (an email address) mentions nobody, as the server reads it.
    const start = match.index + (mention ? text.length - mention.length - 1 : 0);
    if (start > last) nodes.push(caption.slice(last, start));
    if (tag) {
      const name = tag.normalize('NFC').toLowerCase();
      nodes.push(h('a', { href: `#/tag/${encodeURIComponent(name)}`, class: 'hashtag' }, `#${tag}`));
    } else {
      const name = mention.replace(/\.$/, '').toLowerCase();
      nodes.push(h('a', { href: `#/u/${encodeURIComponent(name)}`, class: 'mention' }, `@${name === mention.toLowerCase() ? mention : mention.slice(0, -1)}`));
      if (name.length < mention.length) nodes.push('.');
    }
    last = match.index + text.length;
  }
  if (last < caption.length) nodes.push(caption.slice(last));
  return nodes;
}

const avatars = new Map();

/**
 * A user's profile photo (`small`: the 96 px square, else the 320 px one) with the username as
 * its alt text, or their initial while it loads and when they have none. Posts, comments and
 * activity name only the user: their profile is fetched once per page load (`user` skips that).
 */
export function avatar(id, username, { small = true, user } = {}) {
  const box = h('span', { class: small ? 'avatar small' : 'avatar', 'aria-hidden': 'true' }, (username || '?').slice(0, 1).toUpperCase());
  const show = (photo) => {
    if (!photo) return;
    // Decorative: the name beside it says whose it is.
    box.replaceChildren(h('img', { src: api.imageURL(small ? photo.small : photo.large), alt: '', decoding: 'async' }));
  };
  if (user) {
    avatars.set(id, Promise.resolve(user.avatar));
    show(user.avatar);
  } else if (id) {
    if (!avatars.has(id)) avatars.set(id, api.user(id).then((found) => found.avatar).catch(() => null));
    avatars.get(id).then(show);
  }
  return box;
}

/** A link to a profile. */
export function userLink(username, attributes = {}) {
  return h('a', { href: `#/u/${encodeURIComponent(username)}`, class: 'user', ...attributes }, username);
}

/** A web address as a link only when it is http(s); anything else stays text. */
export function safeLink(url) {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') {
      return h('a', { href: parsed.href, rel: 'noopener noreferrer nofollow ugc' }, url);
    }
  } catch {
    // not a URL
  }
  return h('span', {}, url);
}

/**
 * Shows an API error beside the field it names (`error.field` → the `[name]` control of
 * `form`), or in the form's own message line; focuses the field.
 */
export function showError(form, error) {
  showErrors(form, [error]);
}

/** Every error of a form at once, each beside its field (or at the form's foot); the first field is focused. */
export function showErrors(form, errors) {
  clearErrors(form);
  let first = null;
  for (const error of errors) {
    const control = error.field ? form.querySelector(`[name="${CSS.escape(error.field)}"]`) : null;
    const holder = control ? form.querySelector(`#${CSS.escape(control.id)}-error`) : form.querySelector('.form-error');
    if (holder) holder.textContent = holder.textContent ? `${holder.textContent} ${error.message}` : error.message;
    if (control) {
      control.setAttribute('aria-invalid', 'true');
      first = first || control;
    }
  }
  first?.focus();
}

export function clearErrors(form) {
  for (const holder of form.querySelectorAll('.error')) holder.textContent = '';
  for (const control of form.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid');
}

/**
 * A labelled control with its error line: `field('signup-email', 'Email', {name: 'email',
 * type: 'email'})`. The error line is linked by aria-describedby.
 */
export function field(id, label, attributes = {}, tag = 'input') {
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    h(tag, { id, 'aria-describedby': `${id}-error`, ...attributes }),
    h('p', { id: `${id}-error`, class: 'error', 'aria-live': 'polite' }));
}

/**
 * Infinite scroll: calls `load()` (which answers whether there is more) whenever `sentinel`
 * comes near the viewport, one page at a time. The sentinel holds a "Load more" button for
 * keyboards. Returns a function that stops it.
 */
function pager(sentinel, load, { endText = "You're all caught up" } = {}) {
  let busy = false;
  let done = false;
  const button = h('button', { type: 'button', class: 'secondary load-more' }, 'Load more');
  replace(sentinel, button);
  async function next() {
    if (busy || done) return;
    busy = true;
    button.disabled = true;
    button.textContent = 'Loading…';
    try {
      const more = await load();
      if (!more) {
        done = true;
        observer.disconnect();
        replace(sentinel, h('p', { class: 'end' }, endText));
        return;
      }
    } catch (error) {
      replace(sentinel, h('p', { class: 'error' }, error.message), button);
    } finally {
      busy = false;
      button.disabled = false;
      button.textContent = 'Load more';
    }
    // Still in view after this page (a tall screen): keep going.
    if (!done && sentinel.isConnected && sentinel.getBoundingClientRect().top < window.innerHeight + 400) next();
  }
  button.addEventListener('click', next);
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) next();
  }, { rootMargin: '0px 0px 600px 0px' });
  observer.observe(sentinel);
  next();
  return () => {
    done = true;
    observer.disconnect();
  };
}

/**
 * `pager` over the API's pages: `fetchPage(before)` answers a page (`before` is undefined for
 * the first, then the previous page's `next`; it may answer null to stop), `showPage(page,
 * first)` draws it, and loading ends at the page without a `next`.
 */
export function cursorPager(sentinel, fetchPage, showPage, options) {
  let next;
  let first = true;
  return pager(sentinel, async () => {
    const page = await fetchPage(first ? undefined : next);
    if (!page) return false;
    showPage(page, first);
    first = false;
    next = page.next;
    return Boolean(next);
  }, options);
}

/**
 * The browser's position as `{latitude, longitude}` (rounded to 5 decimals, about a metre),
 * or a rejection with a message a person can act on (no geolocation, permission denied,
 * no fix within 15 s).
 */
export function currentPosition() {
  return new Promise((resolve, reject) => {
    if (!navigator.geolocation) {
      reject(new Error('This browser cannot tell where you are.'));
      return;
    }
    navigator.geolocation.getCurrentPosition(
      ({ coords }) => resolve({ latitude: Number(coords.latitude.toFixed(5)), longitude: Number(coords.longitude.toFixed(5)) }),
      (error) => reject(new Error(error.code === 1 ? 'Location permission was denied.' : 'Your location is not available right now.')),
      { enableHighAccuracy: false, timeout: 15000, maximumAge: 60000 });
  });
}

/**
 * A message line for what a control could not do, placed right after `control` when shown and
 * announced to screen readers; `show('')` takes it away.
 */
export function inlineError(control) {
  const line = h('span', { class: 'error inline-error', role: 'alert' });
  return (message) => {
    line.textContent = message;
    if (message && !line.isConnected) control.after(line);
    else if (!message) line.remove();
  };
}

/**
 * Makes `button` flip an on/off state kept by the server (follow, save, block): a click asks
 * for the other state with `set(wanted)` (which records it on success), the button is disabled
 * while the request runs, and `render()` redraws it after, whatever the outcome. A refusal is
 * shown beside the button. `confirmOn(wanted)` may veto the click. Returns `button`.
 */
export function toggle(button, { isOn, set, render, confirmOn = () => true }) {
  const showError = inlineError(button);
  button.addEventListener('click', async () => {
    const wanted = !isOn();
    if (!confirmOn(wanted)) return;
    button.disabled = true;
    showError('');
    try {
      await set(wanted);
    } catch (error) {
      showError(error.message);
    } finally {
      button.disabled = false;
      render();
    }
  });
  render();
  return button;
}

/** How to scroll: at once when the person asks the system for reduced motion, else smoothly. */
export function scrollBehavior() {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth';
}
