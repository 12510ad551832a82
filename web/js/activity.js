// Activity: comments, likes and follows concerning me, and my posts the operator removed (with
// the reason), newest first; new ones arrive live.
import { api } from './api.js';
import { avatar, cursorPager, h, replace, timeAgo, userLink } from './dom.js';

function describe(item) {
  const post = (text) => h('a', { href: `#/post/${encodeURIComponent(item.post)}` }, text);
  switch (item.kind) {
    case 'comment': return [userLink(item.actorUsername), ' commented on ', post('your post')];
    case 'like': return [userLink(item.actorUsername), ' liked ', post('your post')];
    case 'follow': return [userLink(item.actorUsername), ' started following you'];
    // The post is gone: no link, only why.
    case 'removed': return ['Your post was removed by the moderators: ', h('q', { class: 'reason' }, item.reason)];
    default: return [userLink(item.actorUsername), ` ${item.kind}`];
  }
}

export function render(root, _route, app) {
  document.title = 'Activity · Timeline';
  const list = h('ol', { class: 'activity' });
  const empty = h('p', { class: 'empty', hidden: true }, 'Nothing yet: likes, comments and new followers show up here.');
  const sentinel = h('div', { class: 'more' });
  const item = (entry) => h('li', { class: `activity-item ${entry.kind}` },
    entry.actor ? avatar(entry.actor, entry.actorUsername) : h('span', { class: 'avatar small', 'aria-hidden': 'true' }, '!'),
    h('p', {}, describe(entry), ' ', h('span', { class: 'muted' }, timeAgo(entry.createdAt))));

  const seen = new Set();
  const key = (entry) => [entry.kind, entry.actor, entry.post, entry.comment, entry.at].join(' ');
  const onActivity = (event) => {
    if (seen.has(key(event.detail))) return;
    seen.add(key(event.detail));
    list.prepend(item(event.detail));
    empty.hidden = true;
  };
  app.addEventListener('activity', onActivity);
  replace(root, h('h1', {}, 'Activity'), empty, list, sentinel);

  const stopPager = cursorPager(sentinel, api.activity, (page, first) => {
    if (first) app.markActivitySeen(page.items[0]?.at);
    for (const entry of page.items) {
      if (seen.has(key(entry))) continue;
      seen.add(key(entry));
      list.append(item(entry));
    }
    empty.hidden = list.childElementCount > 0;
  }, { endText: '' });
  return () => {
    stopPager();
    app.removeEventListener('activity', onActivity);
  };
}
