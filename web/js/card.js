// A post as a card (Home, a profile's list view, a hashtag's list), and the like toggle that
// the card and the Post screen share.
import { api } from './api.js';
import { blurhashCanvas } from './blurhash.js';
import { blurWarning, coverIfFiltered } from './filters.js';
import { pollOf } from './poll.js';
import { boostControls, boostedByLine } from './boosts.js';
import { avatar, count, captionNodes, h, inlineError, scrollBehavior, timeAgo, toggle, userLink } from './dom.js';

/** The text an image is described by: its caption, or who posted it. */
export function altText(post, item) {
  if (item?.alt) return item.alt;
  return post.caption ? post.caption : `Photo by ${post.authorUsername}`;
}

/**
 * Likes or unlikes `post` (a mutable object), then calls `update()`. `wanted` true likes,
 * false unlikes.
 */
export async function setLiked(post, wanted) {
  if (Boolean(post.likedByViewer) === wanted) return;
  post.likedByViewer = wanted;
  post.likeCount += wanted ? 1 : -1;
  try {
    await (wanted ? api.like(post.id) : api.unlike(post.id));
  } catch (error) {
    post.likedByViewer = !wanted;
    post.likeCount += wanted ? -1 : 1;
    throw error;
  }
}

/**
 * The Like/Unlike button and like count for `post`, kept in step with each other; a refusal
 * is shown after the count.
 */
export function likeControls(post, { onChange } = {}) {
  const button = h('button', { type: 'button', class: 'like' });
  const likes = h('span', { class: 'likes' });
  const showError = inlineError(likes);
  const render = () => {
    button.textContent = post.likedByViewer ? 'Unlike' : 'Like';
    button.setAttribute('aria-pressed', post.likedByViewer ? 'true' : 'false');
    likes.textContent = count(post.likeCount, 'like');
  };
  const toggle = async (wanted) => {
    const promise = setLiked(post, wanted);
    render();
    showError('');
    try {
      await promise;
    } catch (error) {
      render();
      showError(error.message);
      return;
    }
    render();
    onChange?.();
  };
  button.addEventListener('click', () => toggle(!post.likedByViewer));
  render();
  return { button, likes, like: () => toggle(true), render };
}

/**
 * The Save/Saved bookmark toggle for `post`, or null without a viewer (anonymous readers get
 * no `bookmarkedByViewer`).
 */
export function bookmarkButton(post) {
  if (post.bookmarkedByViewer === undefined) return null;
  const button = h('button', { type: 'button', class: 'bookmark' });
  const render = () => {
    button.textContent = post.bookmarkedByViewer ? 'Saved' : 'Save';
    button.setAttribute('aria-pressed', post.bookmarkedByViewer ? 'true' : 'false');
  };
  return toggle(button, {
    isOn: () => post.bookmarkedByViewer,
    set: async (wanted) => {
      await (wanted ? api.bookmark(post.id) : api.unbookmark(post.id));
      post.bookmarkedByViewer = wanted;
    },
    render,
  });
}

/** A heart that flashes over a photo liked by double-click. */
export function likeOnDoubleClick(figure, controls) {
  const heart = h('span', { class: 'heart', 'aria-hidden': 'true' }, '♥');
  figure.append(heart);
  figure.addEventListener('dblclick', (event) => {
    event.preventDefault();
    heart.classList.remove('pop');
    void heart.offsetWidth; // restart the animation
    heart.classList.add('pop');
    controls.like();
  });
}

/** Where a post was taken, as a line: its place's name, or its coordinates rounded (null without a place). */
export function placeLine(post) {
  const place = post.location;
  if (!place) return null;
  const rounded = `${Math.abs(place.latitude).toFixed(3)}° ${place.latitude < 0 ? 'S' : 'N'}, `
    + `${Math.abs(place.longitude).toFixed(3)}° ${place.longitude < 0 ? 'W' : 'E'}`;
  const where = `#/place/${place.latitude},${place.longitude}` + (place.name ? `?name=${encodeURIComponent(place.name)}` : '');
  return h('p', { class: 'place', title: rounded }, h('span', { class: 'visually-hidden' }, 'Taken at '),
    h('a', { href: where }, place.name || rounded));
}

/** An `<article>` card: author, time ago, place, image, like and comment counts, caption. */
export function postCard(post) {
  const link = `#/post/${encodeURIComponent(post.id)}`;
  const controls = likeControls(post);
  const figure = h('div', { class: 'photo' }, album(post, 'feed', { loading: 'lazy', decoding: 'async' }));
  likeOnDoubleClick(figure, controls);
  const blur = blurWarning(post);
  veilIfSensitive(figure, blur ? { ...post, sensitive: true, warning: post.warning || blur } : post);
  return coverIfFiltered(h('article', { class: 'card', 'data-post': post.id },
    boostedByLine(post),
    h('header', { class: 'card-head' },
      avatar(post.author, post.authorUsername),
      userLink(post.authorUsername, { class: 'user author' }),
      visibilityBadge(post),
      h('a', { href: link, class: 'when', 'aria-label': `View post by ${post.authorUsername}` }, timeAgo(post.createdAt))),
    placeLine(post),
    figure,
    pollOf(post),
    h('div', { class: 'actions' },
      controls.button,
      controls.likes,
      h('a', { href: link, class: 'comment-count' }, count(post.commentCount, 'comment')),
      boostControls(post),
      bookmarkButton(post)),
    post.caption ? h('p', { class: 'caption' }, userLink(post.authorUsername), ' ', captionNodes(post.caption)) : null),
  post);
}

/**
 * A sensitive photo is blurred under its warning until the viewer asks to see it (as Instagram
 * and Mastodon do); the first tap shows it, and does not like it.
 */
export function veilIfSensitive(figure, post) {
  if (!post.sensitive) return;
  figure.classList.add('sensitive');
  // The photo's blurhash covers it (a CSS blur of the photo where it has none).
  const stand = blurhashCanvas(post.media?.[0]?.blurhash);
  if (stand) figure.append(stand);
  const show = h('button', { type: 'button', class: 'veil' },
    h('span', { class: 'veil-title' }, 'Sensitive content'),
    post.warning ? h('span', { class: 'veil-warning' }, post.warning) : null,
    h('span', { class: 'veil-action' }, 'Show'));
  show.addEventListener('click', (event) => {
    event.stopPropagation();
    figure.classList.remove('sensitive');
    show.remove();
    stand?.remove();
  });
  show.addEventListener('dblclick', (event) => event.stopPropagation());
  figure.append(show);
}

/**
 * The photo's width and height as attributes (posts from before the image pipeline have
 * none), so the page keeps its layout while photos load: any variant has the same shape.
 */
export function photoSize(post) {
  return post.width && post.height ? { width: post.width, height: post.height } : {};
}

/**
 * A square thumbnail linking to the post (a profile's grid): a video's is its poster's; an
 * album and a video are marked as such.
 */
export function postTile(post) {
  const photos = post.media || [];
  const mark = photos.length > 1 ? h('span', { class: 'album-mark', title: `${photos.length} photos` }, '❐')
    : photos[0]?.video ? h('span', { class: 'album-mark', title: 'Video' }, '▶') : null;
  return h('li', { class: 'tile', 'data-post': post.id },
    h('a', { href: `#/post/${encodeURIComponent(post.id)}` },
      postImage(post, photos[0], 'thumb', { alt: altText(post, photos[0]), loading: 'lazy', decoding: 'async' }),
      mark));
}

/**
 * A post's video (`item`, from its `media`): a `<video>` with the browser's controls, its
 * poster frame shown until it plays; a public post's by URL (the browser asks for ranges as it
 * seeks), a followers-only post's fetched with the bearer.
 */
export function postVideo(post, item, attributes) {
  const video = h('video', {
    class: 'post-video', controls: true, playsinline: true, preload: 'metadata',
    'aria-label': attributes.alt, width: item.width, height: item.height,
  });
  // Its controls are for playing: a tap on them does not like the post.
  video.addEventListener('dblclick', (event) => event.stopPropagation());
  const poster = item.variants?.feed;
  if (post.visibility !== 'followers') {
    video.src = api.videoURL(item.id);
    if (poster) video.poster = api.imageURL(poster);
    return video;
  }
  api.privateVideoURL(item.id).then((url) => { video.src = url; }, () => video.classList.add('unavailable'));
  if (poster) api.privateImageURL(poster).then((url) => { video.poster = url; }, () => {});
  return video;
}

/**
 * The `<img>` of one of a post's photos (`item`, from its `media`; the post's image without
 * one) in `variant`: a public post's by its URL; a followers-only post's fetched with the
 * bearer (the server shows it only to who may see the post).
 */
export function postImage(post, item, variant, attributes) {
  const image = item?.variants?.[variant] || item?.image || post.image;
  const exact = Boolean(item?.variants?.[variant]);
  const chosen = exact ? undefined : variant;
  if (post.visibility !== 'followers') return h('img', { src: api.imageURL(image, chosen), ...attributes });
  const img = h('img', attributes);
  api.privateImageURL(image, chosen).then((url) => {
    img.addEventListener('load', () => URL.revokeObjectURL(url), { once: true });
    img.src = url;
  }, () => img.classList.add('unavailable'));
  return img;
}

/**
 * A post's photos: one `<img>`, or an album as a carousel that swipes (CSS scroll snap) with
 * Previous/Next buttons and a dot per photo; each photo's alt text is its `alt`.
 */
export function album(post, variant, attributes = {}) {
  // A direct message of text alone has no photo.
  if (!post.media?.length && !post.image) return null;
  const photos = post.media?.length ? post.media : [null];
  const image = (item) => {
    const shown = { alt: altText(post, item), ...attributes, ...photoSize(item || post) };
    return item?.video ? postVideo(post, item, shown) : postImage(post, item, variant, shown);
  };
  if (photos.length === 1) return image(photos[0]);
  const strip = h('div', { class: 'carousel-strip', tabindex: '0', 'aria-label': `${photos.length} photos` },
    ...photos.map((item, index) => h('div', {
      class: 'carousel-slide', role: 'group', 'aria-roledescription': 'slide',
      'aria-label': `Photo ${index + 1} of ${photos.length}`,
    }, image(item))));
  const dots = h('div', { class: 'carousel-dots', role: 'group', 'aria-label': 'Choose a photo' },
    ...photos.map((_, index) => h('button', { type: 'button', class: 'dot', 'aria-label': `Photo ${index + 1} of ${photos.length}` })));
  const show = (index) => strip.scrollTo({ left: index * strip.clientWidth, behavior: scrollBehavior() });
  const current = () => Math.round(strip.scrollLeft / Math.max(1, strip.clientWidth));
  const previous = h('button', { type: 'button', class: 'carousel-nav previous', 'aria-label': 'Previous photo' }, '‹');
  const next = h('button', { type: 'button', class: 'carousel-nav next', 'aria-label': 'Next photo' }, '›');
  const mark = () => {
    const at = current();
    [...dots.children].forEach((dot, index) => dot.setAttribute('aria-current', index === at ? 'true' : 'false'));
    previous.hidden = at === 0;
    next.hidden = at === photos.length - 1;
  };
  [...dots.children].forEach((dot, index) => dot.addEventListener('click', (event) => { event.stopPropagation(); show(index); }));
  previous.addEventListener('click', (event) => { event.stopPropagation(); show(current() - 1); });
  next.addEventListener('click', (event) => { event.stopPropagation(); show(current() + 1); });
  for (const control of [previous, next, dots]) control.addEventListener('dblclick', (event) => event.stopPropagation());
  strip.addEventListener('scroll', mark, { passive: true });
  strip.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowRight') show(current() + 1);
    if (event.key === 'ArrowLeft') show(current() - 1);
  });
  const box = h('section', {
    class: 'carousel', 'aria-roledescription': 'carousel', 'aria-label': `Album of ${photos.length} photos`,
  }, strip, previous, next, dots);
  queueMicrotask(mark);
  return box;
}

/** "Followers" beside a followers-only post's author, "Direct" beside a direct message. */
export function visibilityBadge(post) {
  if (post.visibility === 'direct') {
    return h('span', { class: 'visibility', title: 'Only the people it mentions see this message' }, 'Direct');
  }
  if (post.visibility !== 'followers') return null;
  return h('span', { class: 'visibility', title: 'Only followers see this post' }, 'Followers');
}
