// What a signed-out visitor sees of a shared link: a public post (#/post/ID) or a profile
// (#/u/NAME), read-only from the anonymous API, with a prompt to sign up to like and comment.
import { api } from './api.js';
import { album, placeLine, postTile, veilIfSensitive } from './card.js';
import { avatar, captionNodes, count, cursorPager, h, replace, timeAgo, userLink } from './dom.js';

/** "Sign up to like and comment", with Sign up and Sign in. */
function prompt(what) {
  return h('aside', { class: 'signup-prompt', 'aria-label': 'Join Timeline' },
    h('p', {}, what),
    h('p', {}, h('a', { href: '#/signup', class: 'button' }, 'Sign up'), ' ', h('a', { href: '#/signin' }, 'Sign in')));
}

export async function render(root, { params: [key], mode }) {
  if (mode === 'visitor-profile') return profile(root, key);
  const post = await api.post(key);
  document.title = `${post.authorUsername}${post.caption ? `: ${post.caption.slice(0, 40)}` : ''} · Timeline`;
  const figure = h('div', { class: 'photo' }, album(post, 'full'));
  veilIfSensitive(figure, post);
  const comments = h('ol', { class: 'comments' },
    ...post.comments.items.map((comment) => h('li', { class: comment.replyTo ? 'comment reply' : 'comment' },
      h('p', {}, userLink(comment.authorUsername), ' ', captionNodes(comment.text)),
      h('p', { class: 'meta' }, timeAgo(comment.createdAt)))));
  replace(root,
    h('article', { class: 'post', 'data-post': post.id },
      h('h1', { class: 'visually-hidden', tabindex: '-1' }, `Post by ${post.authorUsername}`),
      h('header', { class: 'card-head' }, avatar(post.author, post.authorUsername),
        userLink(post.authorUsername, { class: 'user author' }), h('span', { class: 'when' }, timeAgo(post.createdAt))),
      placeLine(post),
      figure,
      h('p', { class: 'actions' }, count(post.likeCount, 'like'), ' · ', count(post.commentCount, 'comment')),
      post.caption ? h('p', { class: 'caption' }, userLink(post.authorUsername), ' ', captionNodes(post.caption)) : null,
      comments),
    prompt('Sign up to like and comment.'));
  return null;
}

async function profile(root, name) {
  const user = await api.user(`@${name}`);
  document.title = `${user.username} · Timeline`;
  const grid = h('ul', { class: 'grid' });
  const sentinel = h('div', { class: 'more' });
  replace(root,
    h('header', { class: 'profile-head' },
      avatar(user.id, user.username, { small: false, user }),
      h('h1', { tabindex: '-1' }, user.username),
      h('p', { class: 'counts' }, count(user.postCount, 'post'), ' · ', count(user.followerCount, 'follower'), ' · ',
        `${user.followingCount} following`),
      user.bio ? h('p', { class: 'bio' }, user.bio) : null),
    prompt(`Sign up to follow ${user.username}, like and comment.`),
    user.locked ? h('p', { class: 'muted' }, 'This account is private.') : null,
    grid, sentinel);
  return cursorPager(sentinel, (before) => api.userPosts(user.id, before), (page) => {
    for (const post of page.items) grid.append(postTile(post));
  }, { endText: '' });
}
