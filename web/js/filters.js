// Filters (muted words): the Settings section where the signed-in user mutes a word or phrase
// (hidden, or shown behind a warning, everywhere a post can surface), lists their filters and
// removes one; and how a feed card honours a filter the server reports on a post (`filtered`):
// a warned post is covered ("Shown because of filter X — Show anyway"), a blurred one's photo
// is veiled. Hidden posts never reach the browser: the server leaves them out.
import { api } from './api.js';
import { clearErrors, field, h } from './dom.js';

/** Every place a muted word applies (Mastodon's contexts). */
const EVERYWHERE = ['home', 'notifications', 'public', 'thread', 'account'];

/** Covers `card` when a warn filter of the viewer's matched `post`; returns `card`. */
export function coverIfFiltered(card, post) {
  const warned = (post.filtered || []).filter((result) => result.action === 'warn');
  if (!warned.length) return card;
  const names = warned.map((result) => result.title).join(', ');
  const hidden = Array.from(card.children);
  for (const child of hidden) child.hidden = true;
  const show = h('button', { type: 'button', class: 'secondary filter-show' }, 'Show anyway');
  const cover = h('div', { class: 'filter-cover', role: 'note' },
    h('p', {}, `Shown because of filter ${names}`), show);
  show.addEventListener('click', () => {
    cover.remove();
    for (const child of hidden) child.hidden = false;
  });
  card.classList.add('filtered');
  card.prepend(cover);
  return card;
}

/** The blur filters of the viewer's that matched `post`, as a content warning (or null). */
export function blurWarning(post) {
  const blurred = (post.filtered || []).filter((result) => result.action === 'blur');
  return blurred.length ? `Filtered: ${blurred.map((result) => result.title).join(', ')}` : null;
}

/** The Settings section: mute a word, see and remove one's filters. */
export function filtersSection() {
  const list = h('ul', { class: 'settings-filters' });
  const none = h('p', { class: 'muted' }, 'You have not muted any words.');
  const error = h('p', { class: 'error', role: 'alert' });
  const draw = async () => {
    try {
      const { filters } = await api.filters();
      list.replaceChildren(...filters.map((filter) => {
        const words = filter.keywords.map((keyword) => keyword.keyword).join(', ');
        const remove = h('button', { type: 'button', class: 'secondary', 'aria-label': `Remove ${filter.title}` }, 'Remove');
        remove.addEventListener('click', async () => {
          remove.disabled = true;
          try {
            await api.deleteFilter(filter.id);
            await draw();
          } catch (failure) {
            error.textContent = failure.message;
            remove.disabled = false;
          }
        });
        const how = filter.action === 'hide' ? 'hidden' : filter.action === 'blur' ? 'photos blurred' : 'warned';
        const expired = filter.expiresAt && Date.parse(filter.expiresAt) <= Date.now() ? ' (expired)' : '';
        return h('li', {}, h('span', { class: 'filter-title' }, filter.title),
          h('span', { class: 'muted' }, ` ${words ? `“${words}”, ` : ''}${how}${expired}`), remove);
      }));
      none.hidden = filters.length > 0;
    } catch (failure) {
      error.textContent = failure.message;
    }
  };
  const form = h('form', { novalidate: true },
    field('filter-word', 'Word or phrase', { name: 'keyword', autocomplete: 'off', maxlength: 512 }),
    h('div', { class: 'field' },
      h('label', { for: 'filter-action' }, 'Posts with it'),
      h('select', { id: 'filter-action', name: 'action' },
        h('option', { value: 'warn' }, 'Show behind a warning'),
        h('option', { value: 'hide' }, 'Hide'),
        h('option', { value: 'blur' }, 'Blur the photos'))),
    h('div', { class: 'field checkbox' },
      h('input', { type: 'checkbox', id: 'filter-whole', name: 'wholeWord', checked: true }),
      h('label', { for: 'filter-whole' }, 'Whole word only')),
    h('p', { class: 'form-error', role: 'alert' }),
    h('button', { type: 'submit' }, 'Mute word'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const keyword = form.elements.keyword.value.trim();
    if (!keyword) {
      form.querySelector('#filter-word-error').textContent = 'Enter a word or phrase to mute.';
      form.elements.keyword.setAttribute('aria-invalid', 'true');
      form.elements.keyword.focus();
      return;
    }
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      await api.createFilter({
        title: keyword, context: EVERYWHERE, action: form.elements.action.value,
        keywords: [{ keyword, wholeWord: form.elements.wholeWord.checked }],
      });
      form.reset();
      await draw();
    } catch (failure) {
      form.querySelector('.form-error').textContent = failure.message;
    } finally {
      submit.disabled = false;
    }
  });
  draw();
  return h('section', { class: 'settings-section', 'aria-labelledby': 'settings-filters-title' },
    h('h2', { id: 'settings-filters-title' }, 'Muted words'),
    h('p', { class: 'muted' }, 'Posts with a muted word are hidden or shown behind a warning, in your feed, '
      + 'notifications, hashtags, profiles and comments. Your own posts never are.'),
    form, none, list, error);
}
