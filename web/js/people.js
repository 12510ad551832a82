// People to follow: "Suggested for you" (people followed by the people you follow, else the most
// followed and most active public accounts) and
// "Find friends" (the people among pasted email addresses who allow being found by email).
import { api } from './api.js';
import { avatar, count, h, replace, toggle, userLink } from './dom.js';

/** A Follow/Following toggle for `user` (a profile as the viewer sees it). */
function followButton(user) {
  const button = h('button', { type: 'button' });
  const render = () => {
    button.textContent = user.followedByViewer ? 'Following' : 'Follow';
    button.className = user.followedByViewer ? 'secondary' : 'primary';
    button.setAttribute('aria-pressed', user.followedByViewer ? 'true' : 'false');
    button.setAttribute('aria-label', `${user.followedByViewer ? 'Following' : 'Follow'} ${user.username}`);
  };
  return toggle(button, {
    isOn: () => user.followedByViewer,
    set: async (wanted) => {
      await (wanted ? api.follow(user.id) : api.unfollow(user.id));
      user.followedByViewer = wanted;
    },
    render,
  });
}

/**
 * One person: photo, name, a line under it, and `action` (by default the Follow button, when
 * there is a viewer).
 */
export function person(user, line, action = user.followedByViewer === undefined ? null : followButton(user)) {
  return h('li', {},
    avatar(user.id, user.username, { user }),
    h('span', { class: 'who' }, userLink(user.username), line ? h('span', { class: 'muted bio-line' }, line) : null),
    action);
}

/**
 * "Followed by bob", "Followed by bob and 2 others"; for a popular account suggested to someone
 * whose follows suggest nobody, its follower count.
 */
function followedBy(suggestion) {
  const [first] = suggestion.followedBy;
  if (!first) {
    if (suggestion.followedByCount > 0) return null;
    const { followerCount, postCount } = suggestion.user;
    return followerCount > 0 ? count(followerCount, 'follower') : count(postCount, 'post');
  }
  const others = suggestion.followedByCount - 1;
  return others > 0 ? `Followed by ${first} and ${count(others, 'other')}` : `Followed by ${first}`;
}

/** One suggestion: the person, Follow, and "Not interested" (never suggested again; `gone` takes the row away). */
function suggested(item, gone) {
  const dismiss = h('button', {
    type: 'button', class: 'secondary', 'aria-label': `Don't suggest ${item.user.username} again`,
  }, 'Not interested');
  dismiss.addEventListener('click', async () => {
    dismiss.disabled = true;
    try {
      await api.dismissSuggestion(item.user.id);
      gone();
    } catch {
      dismiss.disabled = false;
    }
  });
  const row = person(item.user, followedBy(item), followButton(item.user));
  row.dataset.user = item.user.id;
  row.append(dismiss);
  return row;
}

/** The "Suggested for you" panel: hidden until there is someone to suggest, asked for by `load()`. */
export function suggestionsPanel() {
  const list = h('ul', { class: 'people' });
  const panel = h('section', { class: 'suggestions', 'aria-labelledby': 'suggestions-title', hidden: true },
    h('h2', { id: 'suggestions-title' }, 'Suggested for you'), list);
  // Asked for by the screen once its own first request is out (Home's feed comes first).
  let asked = false;
  panel.load = () => {
    if (asked) return;
    asked = true;
    api.suggestions().then((page) => {
      replace(list, page.items.slice(0, 5).map((item) => suggested(item, () => {
        list.querySelector(`[data-user="${item.user.id}"]`)?.remove();
        panel.hidden = list.children.length === 0;
      })));
      panel.hidden = list.children.length === 0;
    }).catch(() => {
      // no suggestions then: the panel stays hidden
    });
  };
  return panel;
}

/**
 * "Find friends by email", folded under its summary: pasted email addresses, looked up (never
 * kept) by the server.
 */
export function findFriendsForm() {
  const input = h('textarea', {
    id: 'find-friends', name: 'emails', rows: '3', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false',
    placeholder: 'friend@example.com, other@example.com', 'aria-describedby': 'find-friends-hint',
  });
  const status = h('p', { class: 'status', role: 'status' });
  const results = h('ul', { class: 'people' });
  const form = h('form', { class: 'search-form find-friends' },
    h('label', { for: 'find-friends' }, 'Email addresses'),
    input,
    h('p', { id: 'find-friends-hint', class: 'hint' },
      'Paste up to 1000 addresses. Only people who let others find them by email are shown; the addresses are not kept.'),
    h('button', { type: 'submit', class: 'secondary' }, 'Find friends'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const emails = input.value.split(/[\s,;]+/).filter(Boolean);
    replace(results);
    if (emails.length === 0) {
      status.textContent = 'Paste some email addresses first.';
      return;
    }
    if (emails.length > 1000) {
      status.textContent = `That is ${emails.length} addresses: at most 1000 at a time.`;
      return;
    }
    status.textContent = 'Looking…';
    try {
      const { users } = await api.findContacts(emails);
      replace(results, users.map((user) => person(user, user.bio)));
      status.textContent = users.length === 0 ? 'Nobody found.' : `${count(users.length, 'person', 'people')} found`;
    } catch (error) {
      status.textContent = error.message;
    }
  });
  return h('details', { class: 'find-friends-box' }, h('summary', {}, 'Find friends by email'), form, status, results);
}
