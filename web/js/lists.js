// Lists of one kind each: a profile's followers or following (#/u/NAME/followers, …/following),
// the viewer's saved posts (#/saved), the people they mute or block (#/muted, #/blocked,
// each with Unmute or Unblock), and those asking to follow their private account (#/requests,
// each with Approve and Reject).
import { api } from './api.js';
import { postCard } from './card.js';
import { avatar, cursorPager, h, replace, toggle, userLink } from './dom.js';
import { removeFollowerButton } from './extras.js';
import { person } from './people.js';

export async function render(root, { params, mode }, app) {
  if (mode === 'people') return people(root, params, app);
  if (mode === 'saved') return saved(root);
  if (mode === 'muted') return muted(root);
  if (mode === 'requests') return requests(root);
  return blocked(root);
}

/** `title`, then the items `load(before)` pages in as the reader scrolls (`item` draws one). */
function pagedList(root, { title, intro, list, empty, load, item }) {
  document.title = `${title} · Timeline`;
  const sentinel = h('div', { class: 'more' });
  const none = h('p', { class: 'empty', hidden: true }, empty);
  replace(root, h('h1', {}, title), intro || null, none, list, sentinel);
  let shown = 0;
  return cursorPager(sentinel, load, (page) => {
    for (const entry of page.items) list.append(item(entry));
    shown += page.items.length;
    none.hidden = shown > 0;
  }, { endText: '' });
}

async function people(root, [name, which], app) {
  const user = await api.user(`@${name}`);
  const followers = which === 'followers';
  return pagedList(root, {
    title: followers ? `People following ${user.username}` : `People ${user.username} follows`,
    intro: h('p', {}, userLink(user.username, { class: 'user' }), followers
      ? ` has ${user.followerCount === 1 ? '1 follower' : `${user.followerCount} followers`}.`
      : ` follows ${user.followingCount === 1 ? '1 person' : `${user.followingCount} people`}.`),
    list: h('ul', { class: 'people' }),
    empty: followers ? 'No followers yet.' : 'Not following anyone yet.',
    load: (before) => (followers ? api.followers(user.id, before) : api.following(user.id, before)),
    // One's own followers each have Remove follower (their follow ends; they are not told).
    item: (entry) => person(entry, entry.bio,
      entry.id === app.me?.id ? null : followers && user.id === app.me?.id ? removeFollowerButton(entry) : undefined),
  });
}

function saved(root) {
  return pagedList(root, {
    title: 'Saved posts',
    intro: h('p', { class: 'muted' }, 'Only you can see what you save.'),
    list: h('div', { class: 'feed' }),
    empty: 'Nothing saved yet: Save a post to find it here.',
    load: (before) => api.bookmarks(before),
    item: postCard,
  });
}

function muted(root) {
  return pagedList(root, {
    title: 'Muted accounts',
    intro: h('p', { class: 'muted' }, 'Their posts and activity are hidden from you. They are not told.'),
    list: h('ul', { class: 'people' }),
    empty: 'You have not muted anyone.',
    load: (before) => api.muted(before),
    item: (user) => {
      user.mutedByViewer = true;
      const button = h('button', { type: 'button', class: 'secondary' });
      const until = user.mutedUntil ? h('span', { class: 'muted' }, ` until ${new Date(user.mutedUntil).toLocaleString()}`) : null;
      return h('li', {},
        avatar(user.id, user.username, { user }),
        h('span', { class: 'who' }, userLink(user.username), until),
        toggle(button, {
          isOn: () => user.mutedByViewer,
          set: async (wanted) => {
            await (wanted ? api.mute(user.id) : api.unmute(user.id));
            user.mutedByViewer = wanted;
          },
          render: () => {
            button.textContent = user.mutedByViewer ? 'Unmute' : 'Mute';
            button.setAttribute('aria-label', `${user.mutedByViewer ? 'Unmute' : 'Mute'} ${user.username}`);
          },
        }));
    },
  });
}

function requests(root) {
  return pagedList(root, {
    title: 'Follow requests',
    intro: h('p', { class: 'muted' }, 'Your account is private: these people follow you once you approve.'),
    list: h('ul', { class: 'people' }),
    empty: 'No one is waiting.',
    load: (before) => api.followRequests(before),
    item: (user) => {
      const status = h('p', { class: 'muted', role: 'status' });
      const approve = h('button', { type: 'button', class: 'primary', 'aria-label': `Approve ${user.username}` }, 'Approve');
      const reject = h('button', { type: 'button', class: 'secondary', 'aria-label': `Reject ${user.username}` }, 'Reject');
      const answer = (approving) => async () => {
        approve.disabled = true;
        reject.disabled = true;
        try {
          await (approving ? api.approveFollowRequest(user.id) : api.rejectFollowRequest(user.id));
          approve.remove();
          reject.remove();
          status.textContent = approving ? 'Approved: they follow you now.' : 'Rejected.';
        } catch (error) {
          approve.disabled = false;
          reject.disabled = false;
          status.textContent = error.message;
        }
      };
      approve.addEventListener('click', answer(true));
      reject.addEventListener('click', answer(false));
      return h('li', { 'data-user': user.id },
        avatar(user.id, user.username, { user }),
        h('span', { class: 'who' }, userLink(user.username)),
        approve, reject, status);
    },
  });
}

function blocked(root) {
  return pagedList(root, {
    title: 'Blocked accounts',
    intro: h('p', { class: 'muted' }, 'Neither of you can follow the other, like or comment on the other\'s posts, or find the other in lists.'),
    list: h('ul', { class: 'people' }),
    empty: 'You have not blocked anyone.',
    load: (before) => api.blocked(before),
    item: (user) => {
      user.blockedByViewer = true;
      const button = h('button', { type: 'button', class: 'secondary' });
      return h('li', {},
        avatar(user.id, user.username, { user }),
        h('span', { class: 'who' }, userLink(user.username)),
        toggle(button, {
          isOn: () => user.blockedByViewer,
          set: async (wanted) => {
            await (wanted ? api.block(user.id) : api.unblock(user.id));
            user.blockedByViewer = wanted;
          },
          render: () => {
            button.textContent = user.blockedByViewer ? 'Unblock' : 'Block';
            button.setAttribute('aria-label', `${user.blockedByViewer ? 'Unblock' : 'Block'} ${user.username}`);
          },
        }));
    },
  });
}
