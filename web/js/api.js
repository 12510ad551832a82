// The only module that talks to the server (fetch, the upload's XMLHttpRequest, the
// EventSource). Everything else gets plain objects or an ApiError.
//
// The session token lives in localStorage: see docs/http-api.md, "The web app", for why (a strict
// Content-Security-Policy and text-only rendering leave no way to run injected script; the
// API authenticates by bearer token, not by cookie, so it needs no CSRF defence).

import { operations } from './operations.js';

const SESSION_KEY = 'timeline.session';

// What a person is told for the errors whose server wording is for programmers (a byte count,
// a type list); the others' messages are already sentences about the field.
const PLAIN = {
  payload_too_large: 'That is too large to send: a photo can be at most 10 MB.',
  unsupported_media_type: 'That file is not a photo this app can use: choose a JPEG, PNG, GIF, WebP or HEIC image.',
  rate_limited: 'Too many tries in a short time. Wait a minute, then try again.',
  storage_full: 'The server is out of space. Try again later.',
  internal: 'Something went wrong on the server. Try again.',
};

/** A failed request: the API's `{error: {code, message, field?}}`, plus the HTTP status. */
export class ApiError extends Error {
  constructor(status, error) {
    super(PLAIN[error?.code] || error?.message || `The server answered ${status}. Try again.`);
    this.status = status;
    this.code = error?.code || 'internal';
    this.field = error?.field || null;
  }
}

/** `{session, user}` of the signed-in person, or null. */
export function currentSession() {
  try {
    const stored = JSON.parse(localStorage.getItem(SESSION_KEY) || 'null');
    return stored && typeof stored.session === 'string' ? stored : null;
  } catch {
    return null;
  }
}

function storeSession(value) {
  if (value) localStorage.setItem(SESSION_KEY, JSON.stringify(value));
  else localStorage.removeItem(SESSION_KEY);
  window.dispatchEvent(new CustomEvent('timeline:session'));
}

/** Keeps the stored profile fresh (after GET /v1/me or PATCH /v1/me). */
function rememberUser(user) {
  const current = currentSession();
  if (current) storeSession({ ...current, user });
  return user;
}

// Where each operation lives (its method and path) comes from /app/js/operations.js, which the
// server makes from its route table, as it makes its OpenAPI document: this file names
// operations by their operationId, never a path or a method. A module import, so it is loaded
// with the other modules (3 KB, not the 180 KB document) and no request waits for it.
/** The method and URL path of `operationId`, its `{parameters}` filled from `parameters`. */
function locate(operationId, parameters = {}) {
  const operation = Object.hasOwn(operations, operationId) ? operations[operationId] : null;
  if (!operation) throw new ApiError(0, { code: 'internal', message: `This server does not offer ${operationId}.` });
  const [method, template] = operation;
  const path = template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(parameters[name]));
  return { method, path };
}

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Calls `operationId` with its path parameters (`path`), query parameters and body. */
async function call(operationId, { path, body, params } = {}) {
  const located = locate(operationId, path);
  return request(located.method, located.path, { body, params });
}

async function request(method, path, { body, params } = {}) {
  const headers = { Accept: 'application/json' };
  const session = currentSession();
  if (session) headers.Authorization = `Bearer ${session.session}`;
  const init = { method, headers, cache: 'no-store' };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path + query(params || {}), init);
  } catch {
    throw new ApiError(0, { code: 'network', message: 'The server cannot be reached. Check your connection and try again.' });
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new ApiError(response.status, data?.error);
    if (response.status === 401 && session && error.code === 'unauthenticated') storeSession(null);
    throw error;
  }
  return data;
}

const page = (before, limit = 20) => ({ before, limit });

/**
 * Sends `file` as the multipart part `part` of the operation `operation`, reporting progress
 * as a fraction 0…1; answers the JSON the server sends with `status`. XMLHttpRequest, because
 * fetch cannot report upload progress.
 */
function upload(operation, part, file, status, onProgress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append(part, file, file.name || part);
    const xhr = new XMLHttpRequest();
    const { method, path } = locate(operation);
    xhr.open(method, path);
    const session = currentSession();
    if (session) xhr.setRequestHeader('Authorization', `Bearer ${session.session}`);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: handled below
      }
      if (xhr.status === status && data) {
        onProgress(1);
        resolve(data);
      } else {
        reject(new ApiError(xhr.status, data?.error));
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, { code: 'network', message: 'The upload failed: the server cannot be reached.' })));
    xhr.send(form);
  });
}

export const api = {
  // Account
  async signUp({ username, email, password }) {
    const result = await call('createUser', { body: { username, email, password } });
    // Only the session and the user are kept in the browser: never the email or a password.
    storeSession(result);
    return result.user;
  },
  /** `code`: a one-time code, for an account with two-factor sign-in (`two_factor_required` without it). */
  async signIn({ email, password, code }) {
    const result = await call('signIn', { body: code ? { email, password, code } : { email, password } });
    storeSession(result);
    return result.user;
  },
  // "Forgot password?": the answer is the same whether or not the email is known.
  requestPasswordReset: ({ email }) => call('requestPasswordResetByEmail', { body: { email } }),
  resetPassword: ({ token, password }) => call('resetPassword', { body: { token, password } }),
  async signOut() {
    try {
      await call('signOut');
    } finally {
      storeSession(null);
    }
  },
  // Two-factor sign-in: whether it is on; an authenticator's enrolment (QR code and secret),
  // confirmed by its first code (answers the recovery codes); turned off with password and code.
  twoFactorStatus: () => call('twoFactorStatus'),
  enrollTwoFactor: () => call('enrollTwoFactor'),
  confirmTwoFactor: (code) => call('confirmTwoFactor', { body: { code } }),
  disableTwoFactor: (password, code) => call('disableTwoFactor', { body: { password, code } }),
  /** Ends every session of this user, this browser's too (then signed out here). */
  async signOutEverywhere() {
    await call('signOutEverywhere');
    storeSession(null);
  },
  /**
   * Changes the password. The server ends every session, this one too: this browser is signed
   * out, and the person signs in with the new password (the browser keeps no email to do it).
   * Answers false: not signed in any more.
   */
  async changePassword(currentPassword, newPassword) {
    await call('changePassword', { body: { currentPassword, newPassword } });
    storeSession(null);
    return false;
  },
  /** Changes the email (the password confirms it). */
  changeEmail: (email, password) => call('changeEmail', { body: { email, password } }).then(() => undefined),
  /** Erases the account for good (the password confirms it); then signed out here. */
  async eraseUser(password) {
    await call('eraseUser', { body: { password } });
    storeSession(null);
  },
  me: async () => rememberUser(await call('me')),
  updateProfile: async (fields) => rememberUser(await call('updateProfile', { body: fields })),
  setAvatar: async (file) => {
    const form = new FormData();
    form.append('image', file);
    return rememberUser(await call('setAvatar', { body: form }));
  },
  removeAvatar: async () => rememberUser(await call('removeAvatar')),
  /** The signed-in user's data as a zip archive (a Blob): fetched with the bearer, which a link cannot send. */
  async exportData() {
    const session = currentSession();
    const response = await fetch(locate('exportData').path, {
      headers: session ? { Authorization: `Bearer ${session.session}` } : {},
      cache: 'no-store',
    });
    if (!response.ok) throw new ApiError(response.status, (await response.json().catch(() => null))?.error);
    return response.blob();
  },

  // Push notifications (this session's subscription)
  subscribePush: (subscription) => call('subscribePush', { body: subscription }),
  unsubscribePush: () => call('unsubscribePush'),
  pushSubscription: () => call('pushSubscription'),
  /** The Mastodon API's instance (its `configuration.vapid.public_key` is the key to subscribe with). */
  async instance() {
    const response = await fetch('/api/v2/instance', { cache: 'no-store' });
    return response.json();
  },

  // People
  user: (user) => call('user', { path: { user } }),
  searchUsers: (prefix, before) => call('searchUsers', { params: { prefix, ...page(before) } }),
  tags: (prefix, before) => call('tags', { params: { prefix, ...page(before) } }),
  trendingTags: () => call('trendingTags', { params: { limit: 10 } }),
  trendingPosts: () => call('trendingPosts', { params: { limit: 12 } }),
  userPosts: (user, before) => call('posts', { path: { user }, params: page(before, 24) }),
  followers: (user, before) => call('followers', { path: { user }, params: page(before) }),
  following: (user, before) => call('following', { path: { user }, params: page(before) }),
  /** Follows `user`; `notify` true or false turns notifications of their posts on or off. */
  follow: (user, notify) => call('follow', { path: { user }, body: notify === undefined ? undefined : { notify } }),
  unfollow: (user) => call('unfollow', { path: { user } }),
  block: (user) => call('block', { path: { user } }),
  unblock: (user) => call('unblock', { path: { user } }),
  blocked: (before) => call('blocked', { params: page(before) }),
  /** Blocks every account of another server (`host`, with its port if it has one). */
  blockServer: (host) => call('blockAccountDomain', { path: { host } }),
  unblockServer: (host) => call('unblockAccountDomain', { path: { host } }),
  /** `{servers}`: the hosts the signed-in user blocks. */
  blockedServers: () => call('blockedServers'),
  /** Mutes `user` for `duration` seconds (0: until unmuted). */
  mute: (user, duration = 0) => call('mute', { path: { user }, body: { duration } }),
  unmute: (user) => call('unmute', { path: { user } }),
  muted: (before) => call('muted', { params: page(before) }),
  // Filters (muted words): the signed-in user's own.
  filters: () => call('filters'),
  createFilter: (filter) => call('createFilter', { body: filter }),
  deleteFilter: (filter) => call('deleteFilter', { path: { filter } }),
  /** Who asked to follow the signed-in user's locked account, the latest first. */
  followRequests: (before) => call('followRequests', { params: page(before) }),
  approveFollowRequest: (user) => call('approveFollowRequest', { path: { user } }),
  rejectFollowRequest: (user) => call('rejectFollowRequest', { path: { user } }),
  suggestions: (before) => call('suggestions', { params: page(before) }),
  /** Never suggests `user` to the signed-in user again. */
  dismissSuggestion: (user) => call('dismissSuggestion', { path: { user } }),
  // A query sent by POST so that the addresses travel in the body, never in a URL.
  findContacts: (emails) => call('findContacts', { body: { emails } }),

  // Profile extras: pinned posts, muted conversations, private notes, endorsements, followers
  pin: (id) => call('pin', { path: { post: id } }),
  unpin: (id) => call('unpin', { path: { post: id } }),
  pinnedPosts: (user) => call('pinnedPosts', { path: { user } }),
  muteConversation: (id) => call('muteConversation', { path: { post: id } }),
  unmuteConversation: (id) => call('unmuteConversation', { path: { post: id } }),
  /** Sets the signed-in user's private note on `user` ("" clears it). */
  setNote: (user, note) => call('setAccountNote', { path: { user }, body: { note } }),
  endorse: (user) => call('endorse', { path: { user } }),
  unendorse: (user) => call('unendorse', { path: { user } }),
  endorsements: (user) => call('endorsements', { path: { user } }),
  removeFollower: (user) => call('removeFromFollowers', { path: { user } }),
  familiarFollowers: (user) => call('familiarFollowers', { path: { user } }),

  // Followed hashtags: their public posts come into the home timeline.
  followTag: (tag) => call('followTag', { path: { tag } }),
  unfollowTag: (tag) => call('unfollowTag', { path: { tag } }),
  followsTag: (tag) => call('followsTag', { path: { tag } }),
  followedTags: (before) => call('followedTags', { params: page(before) }),

  // Posts
  timeline: (before) => call('timeline', { params: page(before) }),
  // Stories: the row, posting one (multipart, the part `media`), seeing one, who saw one's own,
  // a reply (a direct message), highlights, deleting.
  stories: () => call('stories'),
  postStory: (file) => {
    const form = new FormData();
    form.append('media', file);
    return call('postStory', { body: form });
  },
  /** Posts one of the user's transcoded videos (`uploadVideo`'s media id) as a story. */
  postVideoStory: (video) => call('postVideoStory', { body: { video } }),
  viewStory: (story) => call('viewStory', { path: { story } }),
  storyViewers: (story, before) => call('storyViewers', { path: { story }, params: page(before) }),
  replyToStory: (story, text) => call('replyToStory', { path: { story }, body: { text } }),
  highlightStory: (story) => call('highlightStory', { path: { story } }),
  unhighlightStory: (story) => call('unhighlightStory', { path: { story } }),
  deleteStory: (story) => call('deleteStory', { path: { story } }),
  highlights: (user) => call('highlights', { path: { user } }),
  hashtag: (tag, before) => call('hashtag', { path: { tag }, params: page(before, 24) }),
  nearby: ({ latitude, longitude, radiusKm }, before) =>
    call('nearby', { params: { latitude, longitude, radiusKm, ...page(before, 24) } }),
  post: (id) => call('post', { path: { post: id } }),
  deletePost: (id) => call('deletePost', { path: { post: id } }),
  /** Sets a post's caption ("" clears it). */
  /** Sets a post's caption and, with `alts` ({media id: text}), its photos' alt texts. */
  editPost: (id, caption, alts) => call('editPost', { path: { post: id }, body: { caption, alts } }),
  postHistory: (id) => call('postHistory', { path: { post: id } }),
  comments: (id, before) => call('comments', { path: { post: id }, params: page(before) }),
  /** Comments on post `id`; with `replyTo`, replies to one of its comments. */
  addComment: (id, text, replyTo) => call('addComment', { path: { post: id }, body: { text, replyTo } }),
  deleteComment: (id) => call('deleteComment', { path: { comment: id } }),
  like: (id) => call('like', { path: { post: id } }),
  unlike: (id) => call('unlike', { path: { post: id } }),
  /** Boosts post `id` (again: the same boost); answers `{id}`, the boost's. */
  reblog: (id) => call('reblog', { path: { post: id }, body: {} }),
  unreblog: (id) => call('unreblog', { path: { post: id } }),
  bookmark: (id) => call('bookmark', { path: { post: id } }),
  unbookmark: (id) => call('unbookmark', { path: { post: id } }),
  bookmarks: (before) => call('bookmarks', { params: page(before) }),

  // Lists of people one follows
  lists: () => call('lists'),
  list: (list) => call('list', { path: { list } }),
  createList: (title, exclusive) => call('createList', { body: { title, exclusive } }),
  /** Changes a list: `fields` of title, repliesPolicy, exclusive. */
  updateList: (list, fields) => call('updateList', { path: { list }, body: fields }),
  deleteList: (list) => call('deleteList', { path: { list } }),
  listAccounts: (list, before) => call('listAccounts', { path: { list }, params: page(before, 100) }),
  addToList: (list, users) => call('addToList', { path: { list }, body: { users } }),
  removeFromList: (list, users) => call('removeFromList', { path: { list }, body: { users } }),
  listTimeline: (list, before) => call('listTimeline', { path: { list }, params: page(before) }),
  // Collections of accounts to feature (Mastodon's collections)
  collection: (collection) => call('collection', { path: { collection } }),
  userCollections: (user) => call('userCollections', { path: { user } }),
  inCollections: () => call('inCollections'),
  /** Makes a collection: `fields` of name, description, discoverable, accounts. */
  createCollection: (fields) => call('createCollection', { body: fields }),
  updateCollection: (collection, fields) => call('updateCollection', { path: { collection }, body: fields }),
  deleteCollection: (collection) => call('deleteCollection', { path: { collection } }),
  addToCollection: (collection, account) => call('addToCollection', { path: { collection }, body: { account } }),
  removeFromCollection: (collection, item) => call('removeFromCollection', { path: { collection, item } }),
  revokeCollectionItem: (collection, item) => call('revokeCollectionItem', { path: { collection, item } }),
  // Direct messages: conversations, each read or removed (from one's own list only).
  conversations: (before) => call('conversations', { params: page(before) }),
  directPosts: (before) => call('directPosts', { params: page(before, 100) }),
  // The bearer's year (annual report): its state and figures; asking for it; marking it read.
  annualReport: (year) => call('annualReport', { path: { year } }),
  generateAnnualReport: (year) => call('generateAnnualReport', { path: { year } }),
  readAnnualReport: (year) => call('readAnnualReport', { path: { year } }),
  markConversationRead: (conversation) => call('markConversationRead', { path: { conversation } }),
  removeConversation: (conversation) => call('removeConversation', { path: { conversation } }),
  reportPost: (id, reason) => call('reportPost', { path: { post: id }, body: { reason } }),
  /** Reports an account, perhaps naming some of its posts. */
  reportUser: (user, reason, posts) => call('reportUser', { path: { user }, body: { reason, posts } }),

  // Moderation (moderators only)
  moderationQueue: () => call('moderationQueue'),
  removePost: (id, reason) => call('removePost', { path: { post: id }, body: { reason } }),
  dismissReports: (id) => call('dismissReports', { path: { post: id } }),
  dismissUserReports: (user) => call('dismissUserReports', { path: { user } }),
  suspendUser: (user) => call('suspendUser', { path: { user } }),
  unsuspendUser: (user) => call('unsuspendUser', { path: { user } }),
  likes: (id, before) => call('likes', { path: { post: id }, params: page(before) }),
  /** A page of activity; `types` (comma-separated kinds) keeps only those. */
  activity: (before, types) => call('activity', { params: { types, ...page(before) } }),
  /** Marks activity read up to the item `upTo` (its id); the server keeps the marker. */
  markActivityRead: (upTo) => call('markActivityRead', { body: { upTo } }),
  /** An image's URL; `variant` (full, feed or thumb) picks that size of a post's photo. */
  imageURL: (image, variant) => `${locate('image', { image }).path}${query({ variant })}`,
  /**
   * A followers-only post's photo, fetched with the bearer (an `<img>` cannot send it: the
   * server answers such a photo only to who may see the post), as a `blob:` URL.
   */
  async privateImageURL(image, variant) {
    const session = currentSession();
    // Revalidated each time (never answered from the cache unasked): the server checks again
    // that this viewer may see it before its 304 lets the cached copy be used.
    const response = await fetch(api.imageURL(image, variant), {
      headers: session ? { Authorization: `Bearer ${session.session}` } : {},
      cache: 'no-cache',
    });
    if (!response.ok) throw new ApiError(response.status, { code: 'not_found', message: 'This photo is not available.' });
    return URL.createObjectURL(await response.blob());
  },

  /** A video's URL (its MP4, with ranges: a `<video>` seeks in it). */
  videoURL: (media) => locate('video', { media }).path,
  /** A followers-only post's video, fetched with the bearer, as a `blob:` URL (see `privateImageURL`). */
  async privateVideoURL(media) {
    const session = currentSession();
    const response = await fetch(api.videoURL(media), {
      headers: session ? { Authorization: `Bearer ${session.session}` } : {},
      cache: 'no-cache',
    });
    if (!response.ok) throw new ApiError(response.status, { code: 'not_found', message: 'This video is not available.' });
    return URL.createObjectURL(await response.blob());
  },
  /** Uploads an export's zip to import (answers the import, running), reporting the upload's progress. */
  startImport: (file, onProgress) => upload('startImport', 'archive', file, 202, onProgress),
  /** One of the user's imports, as it stands. */
  importProgress: (id) => call('importProgress', { path: { import: id } }),
  /** One of the user's uploads, with a video's state. */
  media: (id) => call('media', { path: { media: id } }),

  /** Posts an album of uploaded photos: `{media: [ids], caption?, location?, sensitive?, warning?, visibility?}`. */
  addPost: (fields) => call('addPost', { body: fields }),
  /** Schedules a post: `addPost`'s fields with `media` and `scheduledAt` (ISO); answers `{id}`. */
  schedulePost: (fields) => call('schedulePost', { body: fields }),
  scheduledPosts: (before) => call('scheduledPosts', { params: page(before) }),
  reschedulePost: (id, scheduledAt) => call('reschedulePost', { path: { scheduledPost: id }, body: { scheduledAt } }),
  cancelScheduledPost: (id) => call('cancelScheduledPost', { path: { scheduledPost: id } }),
  /** Sets the alt text of one of the user's photos ("" clears it). */
  updateMedia: (id, alt) => call('updateMedia', { path: { media: id }, body: { alt } }),
  // Polls: read one, vote (choices are option indexes).
  poll: (id) => call('poll', { path: { poll: id } }),
  vote: (id, choices) => call('vote', { path: { poll: id }, body: { choices: choices.map(String) } }),

  /**
   * Uploads a photo (POST /v1/media, multipart/form-data, as FormData sends it) to attach to a
   * post within a day, reporting progress as a fraction 0…1; answers the media (its id,
   * variants and blurhash).
   */
  uploadMedia: (file, onProgress) => upload('uploadMedia', 'image', file, 201, onProgress),

  /**
   * Uploads a video (POST /v1/videos) as `uploadMedia` does a photo, then waits while the
   * server transcodes it (asking every second); answers the media once its video is ready,
   * or fails with the server's reason.
   */
  async uploadVideo(file, onProgress) {
    let media = await upload('uploadVideo', 'video', file, 202, onProgress);
    while (media.video?.state === 'processing') {
      await new Promise((resolve) => { setTimeout(resolve, 1000); });
      media = await api.media(media.id);
    }
    if (media.video?.state === 'failed') {
      throw new ApiError(422, { code: 'invalid_argument', message: `The video cannot be used: ${media.video.reason}` });
    }
    return media;
  },

  /**
   * Live updates: asks for a single-use stream ticket (EventSource cannot send the bearer),
   * then listens for `post`, `activity` and `removed`. Reconnects with a new ticket after a
   * failure, backing off; `onReconnect` lets the screens catch up on what they missed.
   */
  openStream({ onPost, onActivity, onRemoved, onReconnect }) {
    let source = null;
    let closed = false;
    let delay = 1000;
    let connectedOnce = false;
    let timer = null;
    const retry = () => {
      if (closed) return;
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    };
    const parse = (handler) => (event) => {
      try {
        handler(JSON.parse(event.data));
      } catch {
        // a malformed event is skipped
      }
    };
    async function connect() {
      let ticket;
      try {
        ({ ticket } = await call('streamTicket'));
      } catch (error) {
        if (error.status !== 401) retry();
        return;
      }
      if (closed) return;
      source = new EventSource(`${locate('stream').path}${query({ ticket })}`);
      source.addEventListener('post', parse(onPost));
      source.addEventListener('activity', parse(onActivity));
      source.addEventListener('removed', parse(onRemoved));
      source.addEventListener('open', () => {
        delay = 1000;
        if (connectedOnce) onReconnect?.();
        connectedOnce = true;
      });
      source.addEventListener('error', () => {
        // The ticket was single-use: EventSource's own retry would be refused.
        source.close();
        retry();
      });
    }
    connect();
    return {
      close() {
        closed = true;
        clearTimeout(timer);
        source?.close();
      },
    };
  },
};
