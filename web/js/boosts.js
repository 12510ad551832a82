// Boosts (Mastodon's reblogs): the "boosted by NAME" line over a card that came into Home by a
// boost, and the Boost/Boosted toggle beside Like.
import { api } from './api.js';
import { count, h, inlineError, userLink } from './dom.js';

/** "Boosted by NAME" for a post that came in by a boost (null for the post itself). */
export function boostedByLine(post) {
  if (!post.boost) return null;
  return h('p', { class: 'boosted-by' }, '↻ Boosted by ', userLink(post.boost.byUsername, { class: 'user booster' }));
}

/**
 * The Boost/Boosted toggle and boost count for `post`, or null without a viewer (anonymous
 * readers get no `boostedByViewer`). A post for followers only cannot be boosted: no button.
 */
export function boostControls(post) {
  if (post.boostedByViewer === undefined || post.visibility === 'followers') return null;
  const button = h('button', { type: 'button', class: 'boost' });
  const boosts = h('span', { class: 'boosts' });
  const showError = inlineError(boosts);
  const render = () => {
    button.textContent = post.boostedByViewer ? 'Boosted' : 'Boost';
    button.setAttribute('aria-pressed', post.boostedByViewer ? 'true' : 'false');
    boosts.textContent = count(post.boostCount ?? 0, 'boost');
  };
  button.addEventListener('click', async () => {
    const wanted = !post.boostedByViewer;
    showError('');
    button.disabled = true;
    try {
      await (wanted ? api.reblog(post.id) : api.unreblog(post.id));
      post.boostedByViewer = wanted;
      post.boostCount = (post.boostCount ?? 0) + (wanted ? 1 : -1);
    } catch (error) {
      showError(error.message);
    } finally {
      button.disabled = false;
      render();
    }
  });
  render();
  return h('span', { class: 'boost-controls' }, button, boosts);
}
