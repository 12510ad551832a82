// The shell: hash routes (#/, #/post/ID, #/u/NAME, …), the navigation, the live stream and
// the Activity badge. Each screen is a module exporting `render(root, params, app)` that may
// return a function to stop it (observers, listeners) when the screen is left.
import { api, currentSession } from './api.js';
import * as auth from './auth.js';
import * as home from './home.js';
import * as post from './post.js';
import * as profile from './profile.js';
import * as search from './search.js';
import * as compose from './compose.js';
import * as activity from './activity.js';
import * as lists from './lists.js';
import * as peoplelists from './peoplelists.js';
import * as collections from './collections.js';
import * as messages from './messages.js';
import * as scheduled from './scheduled.js';
import * as reports from './reports.js';
import * as settings from './settings.js';
import * as year from './year.js';
import * as tag from './tag.js';
import * as place from './place.js';
import * as visitor from './visitor.js';
import * as reset from './reset.js';
import { h, replace } from './dom.js';

const routes = [
  { pattern: /^\/$/, screen: home, nav: 'home' },
  { pattern: /^\/post\/([^/]+)$/, screen: post, nav: null, visitor: 'visitor-post' },
  { pattern: /^\/profile$/, screen: profile, nav: 'profile' },
  { pattern: /^\/u\/([^/]+)$/, screen: profile, nav: null, visitor: 'visitor-profile' },
  { pattern: /^\/u\/([^/]+)\/(followers|following)$/, screen: lists, nav: null, mode: 'people' },
  { pattern: /^\/saved$/, screen: lists, nav: null, mode: 'saved' },
  { pattern: /^\/lists$/, screen: peoplelists, nav: null },
  { pattern: /^\/scheduled$/, screen: scheduled, nav: null },
  { pattern: /^\/lists\/([^/]+)$/, screen: peoplelists, nav: null },
  { pattern: /^\/collections$/, screen: collections, nav: null },
  { pattern: /^\/collection\/([^/]+)$/, screen: collections, nav: null },
  { pattern: /^\/messages$/, screen: messages, nav: null },
  { pattern: /^\/messages\/([^/]+)$/, screen: messages, nav: null },
  { pattern: /^\/blocked$/, screen: lists, nav: null, mode: 'blocked' },
  { pattern: /^\/muted$/, screen: lists, nav: null, mode: 'muted' },
  { pattern: /^\/requests$/, screen: lists, nav: null, mode: 'requests' },
  { pattern: /^\/reports$/, screen: reports, nav: null },
  { pattern: /^\/settings$/, screen: settings, nav: null },
  { pattern: /^\/year$/, screen: year, nav: null },
  { pattern: /^\/year\/([0-9]{4})$/, screen: year, nav: null },
  { pattern: /^\/search$/, screen: search, nav: 'search' },
  { pattern: /^\/tag\/([^/]+)$/, screen: tag, nav: 'search', open: true },
  { pattern: /^\/place\/(-?[0-9.]+,-?[0-9.]+)$/, screen: place, nav: 'search', open: true },
  { pattern: /^\/new$/, screen: compose, nav: 'new' },
  { pattern: /^\/activity$/, screen: activity, nav: 'activity' },
  { pattern: /^\/signin$/, screen: auth, nav: null, public: true, mode: 'signin' },
  { pattern: /^\/signup$/, screen: auth, nav: null, public: true, mode: 'signup' },
  { pattern: /^\/forgot$/, screen: reset, nav: null, public: true, mode: 'forgot' },
  { pattern: /^\/reset$/, screen: reset, nav: null, public: true, mode: 'reset' },
];

/** What screens share: live events, the badge, navigation. */
class App extends EventTarget {
  constructor() {
    super();
    this.unread = 0;
    this.stream = null;
  }

  get me() {
    return currentSession()?.user || null;
  }

  navigate(hash) {
    if (location.hash === hash) render();
    else location.hash = hash;
  }

  // The unread badge: activity after the read marker the server keeps (so it agrees across
  // devices), which the Activity screen moves.
  markActivitySeen(newestId) {
    this.setUnread(0);
    if (newestId) api.markActivityRead(newestId).catch(() => {});
  }

  setUnread(n) {
    this.unread = n;
    const badge = document.getElementById('unread');
    badge.hidden = n === 0;
    replace(badge, h('span', { 'aria-hidden': 'true' }, n > 99 ? '99+' : String(n)), h('span', { class: 'visually-hidden' }, ` ${n} unread`));
  }

  async countUnread() {
    try {
      this.setUnread((await api.me()).unreadActivity || 0);
    } catch {
      // the badge is a hint; the Activity screen shows errors
    }
  }

  startLive() {
    this.stopLive();
    this.stream = api.openStream({
      onPost: (item) => this.dispatchEvent(new CustomEvent('post', { detail: item })),
      onRemoved: (item) => this.dispatchEvent(new CustomEvent('removed', { detail: item })),
      onActivity: (item) => {
        // Read at once when the whole Activity list is on screen; otherwise it is unread.
        if (currentRoute?.screen === activity && !this.activityFilter) this.markActivitySeen(item.id);
        else this.setUnread(this.unread + 1);
        this.dispatchEvent(new CustomEvent('activity', { detail: item }));
      },
      onReconnect: () => {
        this.countUnread();
        this.dispatchEvent(new CustomEvent('reconnect'));
      },
    });
    this.countUnread();
  }

  stopLive() {
    this.stream?.close();
    this.stream = null;
    this.setUnread(0);
  }
}

const app = new App();
let currentRoute = null;
let stopScreen = null;

function parseHash() {
  const raw = location.hash.startsWith('#/') ? location.hash.slice(1) : '/';
  const [path, search = ''] = raw.split('?');
  return { path, query: new URLSearchParams(search) };
}

// Where a signed-out person was going (a shared link, say): Sign in and Sign up lead there.
let afterSignIn = null;

async function render() {
  const { path, query } = parseHash();
  const asked = routes.find((candidate) => candidate.pattern.test(path)) || null;
  const signedIn = Boolean(currentSession());
  // Another screen may stand in for the one asked for: it then gets no parameters of its own.
  let route = asked;
  // A shared post or profile opens read-only for a signed-out visitor; a tag's page for anyone.
  if (!signedIn && asked?.visitor) {
    afterSignIn = location.hash;
    route = { ...asked, screen: visitor, mode: asked.visitor };
  } else if (asked && !asked.public && !asked.open && !signedIn) {
    afterSignIn = location.hash;
    route = routes.find((candidate) => candidate.mode === 'signin');
  } else if (asked?.public && signedIn) {
    route = routes[0];
  }

  stopScreen?.();
  stopScreen = null;
  currentRoute = route;
  document.body.classList.toggle('signed-in', signedIn);
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (route && link.dataset.nav === route.nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }

  const main = document.getElementById('main');
  const root = h('div', { class: 'screen' });
  replace(main, root);
  if (!route) {
    document.title = 'Not found · Timeline';
    replace(root, h('h1', { tabindex: '-1' }, 'Not found'), h('p', {}, h('a', { href: '#/' }, 'Go to Home')));
    focusHeading(root);
    return;
  }
  const params = route.pattern === asked?.pattern ? path.match(route.pattern).slice(1).map(decodeURIComponent) : [];
  try {
    const stop = await route.screen.render(root, { params, query, mode: route.mode }, app);
    if (currentRoute === route && root.isConnected) stopScreen = typeof stop === 'function' ? stop : null;
    else if (typeof stop === 'function') stop();
  } catch (error) {
    if (!root.isConnected) return;
    const missing = error.status === 404;
    document.title = `${missing ? 'Not found' : 'Something went wrong'} · Timeline`;
    replace(root, h('h1', { tabindex: '-1' }, missing ? 'Not found' : 'Something went wrong'),
      h('p', { class: missing ? 'muted' : 'error', role: 'alert' },
        missing ? 'It may have been deleted, or the address is wrong.' : error.message),
      h('p', {}, h('a', { href: '#/' }, 'Go to Home')));
  }
  if (root.isConnected) focusHeading(root);
}

/** After signing in or up: where the person was going, else Home. */
app.afterSignIn = () => {
  const target = afterSignIn && !/^#\/sign(in|up)$/.test(afterSignIn) ? afterSignIn : '#/';
  afterSignIn = null;
  app.navigate(target);
};

let firstRender = true;
/**
 * Moves focus to the new screen's heading (keyboard and screen-reader users land there),
 * unless the screen put it somewhere itself (Search, on its search box).
 */
function focusHeading(root) {
  if (firstRender) {
    firstRender = false;
    return;
  }
  if (root.contains(document.activeElement)) return;
  const heading = root.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
  window.scrollTo(0, 0);
}

// A screen may hold work that leaving would lose (a draft): `app.leaveGuard` answers whether to
// go; staying puts the address back without a render.
let shownHash = location.hash;
window.addEventListener('hashchange', () => {
  if (app.leaveGuard && !app.leaveGuard()) {
    history.replaceState(null, '', shownHash || '#/');
    return;
  }
  app.leaveGuard = null;
  shownHash = location.hash;
  if (location.hash.startsWith('#/') || location.hash === '') render();
});

// Signing in or out (here, in another tab, or by a 401) restarts the live stream.
let streamOwner = null;
function sessionChanged() {
  const session = currentSession();
  if (session?.session === streamOwner) return;
  streamOwner = session?.session || null;
  if (session) app.startLive();
  else app.stopLive();
}
window.addEventListener('timeline:session', () => {
  const wasSignedIn = Boolean(streamOwner);
  sessionChanged();
  if (wasSignedIn && !currentSession()) app.navigate('#/signin');
});
window.addEventListener('storage', (event) => {
  if (event.key === 'timeline.session') {
    sessionChanged();
    render();
  }
});

// The screen first, so that its request (Home's feed) is the first to leave; then the live
// stream, whose unread count (GET /v1/me) also refreshes the stored profile.
render();
sessionChanged();
