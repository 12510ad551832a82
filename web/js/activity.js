// Activity: comments, likes, boosts, follows, follow requests, mentions and replies concerning me,
// being added to someone's collection, new posts of those I asked to be notified of, and my posts the
// operator removed (with the reason), newest first; new ones arrive live; filtered by kind.
import { api } from './api.js';
import { avatar, cursorPager, h, replace, timeAgo, userLink } from './dom.js';

function describe(item) {
  const post = (text) => h('a', { href: `#/post/${encodeURIComponent(item.post)}` }, text);
  switch (item.kind) {
    case 'comment': return [userLink(item.actorUsername), ' commented on ', post('your post')];
    case 'like': return [userLink(item.actorUsername), ' liked ', post('your post')];
    case 'follow': return [userLink(item.actorUsername), ' started following you'];
    case 'follow_request': return [userLink(item.actorUsername), ' asked to follow you · ', h('a', { href: '#/requests' }, 'Answer')];
    case 'mention': return [userLink(item.actorUsername), ' mentioned you in ', post(item.comment ? 'a comment' : 'a post')];
    case 'reply': return [userLink(item.actorUsername), ' replied to your comment on ', post('a post')];
    case 'post': return [userLink(item.actorUsername), ' posted ', post('a photo')];
    case 'boost': return [userLink(item.actorUsername), ' boosted ', post('your post')];
    case 'added_to_collection': return [userLink(item.actorUsername), ' added you to ',
      h('a', { href: `#/collection/${encodeURIComponent(item.collection)}` }, 'a collection')];
    // The post is gone: no link, only why.
    case 'removed': return ['Your post was removed by the moderators: ', h('q', { class: 'reason' }, item.reason)];
    default: return [userLink(item.actorUsername), ` ${item.kind}`];
  }
}

/** The filters: all activity, or one kind (the server's `types`). */
const FILTERS = [['All', null], ['Mentions', 'mention'], ['Replies', 'reply'], ['Comments', 'comment'], ['Likes', 'like'],
  ['Follows', 'follow'], ['Requests', 'follow_request'], ['Posts', 'post'], ['Collections', 'added_to_collection'],
  ['Removals', 'removed']];

export function render(root, _route, app) {
  document.title = 'Activity · Timeline';
  const list = h('ol', { class: 'activity' });
  const empty = h('p', { class: 'empty', hidden: true }, 'Nothing yet: likes, comments and new followers show up here.');
  const sentinel = h('div', { class: 'more' });
  const item = (entry) => h('li', { class: `activity-item ${entry.kind}` },
    entry.actor ? avatar(entry.actor, entry.actorUsername) : h('span', { class: 'avatar small', 'aria-hidden': 'true' }, '!'),
    h('p', {}, describe(entry), ' ', h('span', { class: 'muted' }, timeAgo(entry.createdAt))));

  let seen = new Set();
  let stopPager = null;
  const onActivity = (event) => {
    const entry = event.detail;
    if (seen.has(entry.id) || (app.activityFilter && entry.kind !== app.activityFilter)) return;
    seen.add(entry.id);
    list.prepend(item(entry));
    empty.hidden = true;
  };
  app.addEventListener('activity', onActivity);

  // One kind at a time, or all; reading the whole list moves the read marker.
  const filters = h('div', { class: 'filters', role: 'group', 'aria-label': 'Show' });
  const show = (kind) => {
    app.activityFilter = kind;
    for (const button of filters.children) button.setAttribute('aria-pressed', String((button.dataset.kind || null) === kind));
    stopPager?.();
    seen = new Set();
    replace(list);
    empty.hidden = true;
    stopPager = cursorPager(sentinel, (before) => api.activity(before, kind || undefined), (page, first) => {
      if (first && !kind) app.markActivitySeen(page.items[0]?.id);
      for (const entry of page.items) {
        if (seen.has(entry.id)) continue;
        seen.add(entry.id);
        list.append(item(entry));
      }
      empty.hidden = list.childElementCount > 0;
    }, { endText: '' });
  };
  for (const [label, kind] of FILTERS) {
    filters.append(h('button', { type: 'button', class: 'chip', 'data-kind': kind || '', onclick: () => show(kind) }, label));
  }
  replace(root, h('h1', {}, 'Activity'), filters, empty, list, sentinel);
  show(null);
  return () => {
    stopPager?.();
    app.activityFilter = null;
    app.removeEventListener('activity', onActivity);
  };
}
