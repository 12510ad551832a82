// Messages: direct posts, seen only by their author and the people they @mention. #/messages
// lists the conversations (the newest message first, unread ones marked) with a form to write
// to @someone (text alone is allowed); #/messages/ID opens one: its messages, oldest first (the
// newest page; "Load older messages" pages back to its first), and an answer to everyone in it. Opening a conversation marks it read; Remove takes it out of
// one's own list only.
import { api } from './api.js';
import { h, replace, showError } from './dom.js';

export async function render(root, { params }, app) {
  if (params.length) return one(root, params[0], app);
  return all(root, app);
}

/**
 * A form that sends a direct message whose text starts with `to` (the @names addressed); in a
 * conversation, `answering()` names its newest message, which the message answers (so it stays
 * in the conversation whatever the text mentions).
 */
function sendForm(to, sent, answering = () => undefined) {
  const text = h('textarea', { id: 'message-text', name: 'caption', rows: '3', required: true });
  text.value = to;
  const form = h('form', { class: 'panel', novalidate: true },
    h('label', { for: 'message-text' }, 'Message (only the people you @mention see it)'), text,
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Send'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const post = await api.addPost({ caption: text.value, visibility: 'direct', inReplyTo: answering() });
      text.value = to;
      await sent(post);
    } catch (error) {
      showError(form, error);
    }
  });
  return form;
}

async function all(root, app) {
  document.title = 'Messages · Timeline';
  const items = h('ul', { class: 'people conversations' });
  const none = h('p', { class: 'empty', hidden: true }, 'No messages yet: write to someone with @their name.');
  const show = async () => {
    const page = await api.conversations();
    items.replaceChildren(...page.items.map((c) => row(c, show)));
    none.hidden = page.items.length > 0;
  };
  replace(root, h('h1', {}, 'Messages'), sendForm('@', show), none, items);
  await show();
}

/** One conversation's row: who wrote its last message and what, unread or not, and Remove. */
function row(conversation, refresh) {
  const last = conversation.lastPost;
  const remove = h('button', { type: 'button', class: 'secondary', 'aria-label': 'Remove this conversation' }, 'Remove');
  remove.addEventListener('click', async () => {
    await api.removeConversation(conversation.id);
    await refresh();
  });
  return h('li', { class: conversation.unread ? 'unread' : '' },
    h('a', { href: `#/messages/${encodeURIComponent(conversation.id)}`, class: 'who' },
      conversation.unread ? h('strong', {}, `@${last.authorUsername}: `) : `@${last.authorUsername}: `,
      last.caption || ''),
    conversation.unread ? h('span', { class: 'muted' }, ' (unread)') : null,
    remove);
}

async function one(root, id, app) {
  document.title = 'Conversation · Timeline';
  // The conversation among the bearer's, page by page (an old one is past the first page).
  let conversation = null;
  for (let before, pages = 0; !conversation && pages < 50; pages += 1) {
    const page = await api.conversations(before);
    conversation = page.items.find((c) => c.id === id) || null;
    if (!page.next) break;
    before = page.next;
  }
  if (!conversation) {
    replace(root, h('h1', {}, 'Conversation'), h('p', { class: 'empty' }, 'This conversation is not in your messages.'));
    return;
  }
  await api.markConversationRead(id);
  const people = new Set([...conversation.accounts, app.me.id]);
  const names = await Promise.all(conversation.accounts.map(async (user) => (await api.user(user)).username));
  const thread = h('ol', { class: 'messages' });
  // Its messages: the direct posts among exactly these people, newest first as the pages come
  // (the bearer's direct posts, 100 a page); drawn oldest first.
  const among = (post) => {
    const them = new Set([post.author, ...(post.addressees || [])]);
    return them.size === people.size && [...them].every((user) => people.has(user));
  };
  const messages = [];
  const shown = new Set();
  let older; // the cursor of the next older page; null once the oldest was read
  const draw = () => thread.replaceChildren(...[...messages].reverse().map((post) => h('li', { 'data-post': post.id },
    h('strong', {}, `@${post.authorUsername}`), ' ', post.caption || '')));
  const take = (posts, where) => {
    const fresh = posts.filter((post) => among(post) && !shown.has(post.id));
    for (const post of fresh) shown.add(post.id);
    if (where === 'newer') messages.unshift(...fresh);
    else messages.push(...fresh);
    return fresh.length;
  };
  const more = h('button', { type: 'button', class: 'secondary load-older', hidden: true }, 'Load older messages');
  const status = h('p', { class: 'muted', role: 'status' });
  /** Reads older pages until one holds a message of this conversation, or there is none older. */
  const loadOlder = async () => {
    more.disabled = true;
    try {
      let found = 0;
      while (older && !found) {
        const page = await api.directPosts(older);
        found = take(page.items, 'older');
        older = page.next || null;
      }
      draw();
      more.hidden = !older;
      status.textContent = older ? '' : 'The start of the conversation.';
    } catch (error) {
      status.textContent = error.message;
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', loadOlder);
  // The newest page: the first read, and again after sending (new messages go at the bottom).
  const showNewest = async () => {
    const page = await api.directPosts();
    const first = older === undefined;
    take(page.items, first ? 'older' : 'newer');
    if (first) older = page.next || null;
    draw();
    more.hidden = !older;
    if (first && !older) status.textContent = 'The start of the conversation.';
  };
  replace(root, h('h1', {}, `With ${names.map((n) => `@${n}`).join(', ')}`), status, more, thread,
    sendForm(names.map((n) => `@${n} `).join(''), showNewest, () => messages[0]?.id));
  await showNewest();
}
