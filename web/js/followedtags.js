// The hashtags the signed-in person follows (the latest followed first), each a link to its
// page: shown on a tag's page and in Search.
import { api } from './api.js';
import { h, replace } from './dom.js';

/** A section listing the followed hashtags; `reload()` reads them again. */
export function followedTagsSection() {
  const list = h('ul', { class: 'followed-tags' });
  const element = h('section', { class: 'followed-tags-section', 'aria-label': 'Hashtags you follow' },
    h('h2', {}, 'Hashtags you follow'), list);
  const reload = async () => {
    try {
      const page = await api.followedTags();
      replace(list, ...(page.items.length === 0
        ? [h('li', { class: 'muted' }, 'None yet.')]
        : page.items.map((tag) => h('li', {}, h('a', { href: `#/tag/${encodeURIComponent(tag.name)}`, class: 'tag' }, `#${tag.name}`)))));
    } catch (error) {
      replace(list, h('li', { class: 'muted' }, error.message));
    }
  };
  reload();
  return { element, reload };
}
