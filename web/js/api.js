// The only module that talks to the server (fetch, the upload's XMLHttpRequest, the
// EventSource). Everything else gets plain objects or an ApiError.
//
// The session token lives in localStorage: see docs/http-api.md, "The web app", for why (a strict
// Content-Security-Policy and text-only rendering leave no way to run injected script; the
// API authenticates by bearer token, not by cookie, so it needs no CSRF defence).

const SESSION_KEY = 'timeline.session';

/** A failed request: the API's `{error: {code, message, field?}}`, plus the HTTP status. */
export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message || `the server answered ${status}`);
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
  if (current) storeSession({ session: current.session, user });
  return user;
}

const segment = (value) => encodeURIComponent(value);

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
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

export const api = {
  // Account
  async signUp({ username, email, password }) {
    const result = await request('POST', '/v1/users', { body: { username, email, password } });
    storeSession(result);
    return result.user;
  },
  async signIn({ email, password }) {
    const result = await request('POST', '/v1/sessions', { body: { email, password } });
    storeSession(result);
    return result.user;
  },
  async signOut() {
    try {
      await request('DELETE', '/v1/sessions/current');
    } finally {
      storeSession(null);
    }
  },
  me: async () => rememberUser(await request('GET', '/v1/me')),
  updateProfile: async (fields) => rememberUser(await request('PATCH', '/v1/me', { body: fields })),
  setAvatar: async (file) => {
    const form = new FormData();
    form.append('image', file);
    return rememberUser(await request('PUT', '/v1/me/avatar', { body: form }));
  },
  removeAvatar: async () => rememberUser(await request('DELETE', '/v1/me/avatar')),

  // People
  user: (user) => request('GET', `/v1/users/${segment(user)}`),
  searchUsers: (prefix, before) => request('GET', '/v1/users', { params: { prefix, ...page(before) } }),
  userPosts: (user, before) => request('GET', `/v1/users/${segment(user)}/posts`, { params: page(before, 24) }),
  followers: (user, before) => request('GET', `/v1/users/${segment(user)}/followers`, { params: page(before) }),
  following: (user, before) => request('GET', `/v1/users/${segment(user)}/following`, { params: page(before) }),
  follow: (user) => request('PUT', `/v1/me/following/${segment(user)}`),
  unfollow: (user) => request('DELETE', `/v1/me/following/${segment(user)}`),
  block: (user) => request('PUT', `/v1/me/blocks/${segment(user)}`),
  unblock: (user) => request('DELETE', `/v1/me/blocks/${segment(user)}`),
  blocked: (before) => request('GET', '/v1/me/blocks', { params: page(before) }),
  suggestions: (before) => request('GET', '/v1/me/suggestions', { params: page(before) }),
  // A query sent by POST so that the addresses travel in the body, never in a URL.
  findContacts: (emails) => request('POST', '/v1/me/contacts', { body: { emails } }),

  // Posts
  timeline: (before) => request('GET', '/v1/timeline', { params: page(before) }),
  hashtag: (tag, before) => request('GET', `/v1/hashtags/${segment(tag)}/posts`, { params: page(before, 24) }),
  nearby: ({ latitude, longitude, radiusKm }, before) =>
    request('GET', '/v1/posts/nearby', { params: { latitude, longitude, radiusKm, ...page(before, 24) } }),
  post: (id) => request('GET', `/v1/posts/${segment(id)}`),
  deletePost: (id) => request('DELETE', `/v1/posts/${segment(id)}`),
  comments: (id, before) => request('GET', `/v1/posts/${segment(id)}/comments`, { params: page(before) }),
  addComment: (id, text) => request('POST', `/v1/posts/${segment(id)}/comments`, { body: { text } }),
  deleteComment: (id) => request('DELETE', `/v1/comments/${segment(id)}`),
  like: (id) => request('PUT', `/v1/posts/${segment(id)}/like`),
  unlike: (id) => request('DELETE', `/v1/posts/${segment(id)}/like`),
  bookmark: (id) => request('PUT', `/v1/posts/${segment(id)}/bookmark`),
  unbookmark: (id) => request('DELETE', `/v1/posts/${segment(id)}/bookmark`),
  bookmarks: (before) => request('GET', '/v1/me/bookmarks', { params: page(before) }),
  reportPost: (id, reason) => request('POST', `/v1/posts/${segment(id)}/reports`, { body: { reason } }),
  likes: (id, before) => request('GET', `/v1/posts/${segment(id)}/likes`, { params: page(before) }),
  activity: (before) => request('GET', '/v1/activity', { params: page(before) }),
  /** An image's URL; `variant` (full, feed or thumb) picks that size of a post's photo. */
  imageURL: (image, variant) => `/v1/images/${segment(image)}${variant ? `?variant=${variant}` : ''}`,

  /**
   * POST /v1/posts as multipart/form-data (what FormData sends), reporting progress as a
   * fraction 0…1; `location` ({latitude, longitude, name?}, optional) goes as a JSON part.
   * XMLHttpRequest, because fetch cannot report upload progress.
   */
  upload(file, caption, onProgress, location) {
    return new Promise((resolve, reject) => {
      const form = new FormData();
      form.append('image', file, file.name || 'photo');
      if (caption) form.append('caption', caption);
      if (location) form.append('location', JSON.stringify(location));
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/v1/posts');
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
        if (xhr.status === 201 && data) {
          onProgress(1);
          resolve(data);
        } else {
          reject(new ApiError(xhr.status, data?.error));
        }
      });
      xhr.addEventListener('error', () => reject(new ApiError(0, { code: 'network', message: 'The upload failed: the server cannot be reached.' })));
      xhr.send(form);
    });
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
        ({ ticket } = await request('POST', '/v1/stream/tickets'));
      } catch (error) {
        if (error.status !== 401) retry();
        return;
      }
      if (closed) return;
      source = new EventSource(`/v1/stream${query({ ticket })}`);
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
