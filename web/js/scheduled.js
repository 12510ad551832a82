// Scheduled posts: #/scheduled lists the signed-in user's posts waiting for their time (the
// latest scheduled first), each with its time, which can be changed (at least 5 minutes ahead),
// and Cancel. The server publishes each at its time.
import { api } from './api.js';
import { h, replace, showError } from './dom.js';

/** `iso` as a `datetime-local` input's value, in the browser's time zone. */
export function localInput(iso) {
  const date = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export async function render(root) {
  document.title = 'Scheduled posts · Timeline';
  const items = h('ul', { class: 'scheduled-posts' });
  const none = h('p', { class: 'empty', hidden: true }, 'Nothing scheduled. Choose "Schedule for later" in New post.');
  const show = async () => {
    const page = await api.scheduledPosts();
    items.replaceChildren(...page.items.map((post) => row(post, show)));
    none.hidden = page.items.length > 0;
  };
  replace(root, h('h1', {}, 'Scheduled posts'), none, items);
  await show();
}

/** One scheduled post: its photo, caption and time; Change time and Cancel. */
function row(post, refresh) {
  const when = new Date(post.scheduledAt);
  const time = h('input', { type: 'datetime-local', value: localInput(post.scheduledAt), 'aria-label': 'New time' });
  const save = h('button', { type: 'button', class: 'secondary' }, 'Change time');
  const cancel = h('button', { type: 'button', class: 'secondary danger' }, 'Cancel');
  const error = h('p', { class: 'error form-error', role: 'alert' });
  // Its photo is the author's alone until it is published: fetched with the bearer.
  const thumb = post.media[0] ? h('img', { class: 'thumb', alt: post.media[0].alt || 'Photo', width: '64' }) : null;
  if (thumb) api.privateImageURL(post.media[0].image, 'thumb').then((url) => { thumb.src = url; }, () => { thumb.hidden = true; });
  const item = h('li', { class: 'panel scheduled-post' },
    thumb,
    h('p', { class: 'caption' }, post.caption || 'No caption'),
    h('p', { class: 'when' }, h('time', { datetime: post.scheduledAt }, `Posts ${when.toLocaleString()}`)),
    h('div', { class: 'row' }, time, save, cancel), error);
  save.addEventListener('click', async () => {
    try {
      await api.reschedulePost(post.id, new Date(time.value).toISOString());
      await refresh();
    } catch (failure) {
      showError(item, failure);
    }
  });
  cancel.addEventListener('click', async () => {
    if (!window.confirm('Cancel this scheduled post?')) return;
    try {
      await api.cancelScheduledPost(post.id);
      await refresh();
    } catch (failure) {
      showError(item, failure);
    }
  });
  return item;
}
