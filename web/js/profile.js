// Profile: counts (followers and following lead to their lists), bio, url, Follow/Unfollow
// (Requested, for a private account that has not answered), Mute/Unmute and Block/Unblock (and
// Block HOST for another server's account), the
// posts as a grid or a list (Onstagram's toggle), and on one's own: Edit profile (with the
// private-account switch) and a "…" menu of Settings, Follow requests, Saved posts, Reports (for
// moderators) and Sign out. Under the header, the highlights (stories kept on the profile).
import { api } from './api.js';
import { postCard, postTile } from './card.js';
import { endorseButton, featuredPanel, noteField, showPinned } from './extras.js';
import { collectionsPanel } from './collections.js';
import { reportControl } from './post.js';
import { highlightsPanel } from './stories.js';
import { append, avatar, clearErrors, cursorPager, field, h, replace, safeLink, showError, toggle } from './dom.js';

const VIEW_KEY = 'timeline.profileView';

export async function render(root, { params: [name] }, app) {
  const me = app.me;
  const user = name ? await api.user(`@${name}`) : await api.me();
  const own = user.id === me?.id;
  document.title = `${user.username} · Timeline`;

  const counts = h('ul', { class: 'counts' });
  const listOf = (which) => `#/u/${encodeURIComponent(user.username)}/${which}`;
  const renderCounts = () => replace(counts,
    h('li', {}, h('strong', {}, String(user.postCount)), user.postCount === 1 ? ' post' : ' posts'),
    h('li', {}, h('a', { href: listOf('followers') }, h('strong', {}, String(user.followerCount)), user.followerCount === 1 ? ' follower' : ' followers')),
    h('li', {}, h('a', { href: listOf('following') }, h('strong', {}, String(user.followingCount)), ' following')));
  renderCounts();

  const about = h('div', { class: 'about' });
  const renderAbout = () => replace(about,
    user.bio ? h('p', { class: 'bio' }, user.bio) : null,
    user.url ? h('p', { class: 'url' }, safeLink(user.url)) : null);
  renderAbout();

  const heading = h('h1', {}, user.username, user.locked ? h('span', { class: 'locked', title: 'Private account' }, ' 🔒') : null);
  const photo = h('div', { class: 'profile-photo' });
  const renderPhoto = () => replace(photo, avatar(user.id, user.username, { small: false, user }));
  renderPhoto();
  const buttons = h('div', { class: 'profile-buttons' });
  const editor = h('div', { class: 'editor' });

  if (own) {
    const edit = h('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false', 'aria-controls': 'profile-editor' }, 'Edit profile');
    const signOut = h('button', { type: 'button', class: 'menu-item', role: 'menuitem' }, 'Sign out');
    const requestsLink = h('a', { href: '#/requests', class: 'menu-item', role: 'menuitem', hidden: !user.locked }, 'Follow requests');
    // The "…" menu: Settings and the rest, so the profile keeps one row of buttons on a phone.
    const more = h('button', { type: 'button', class: 'secondary more-button', 'aria-haspopup': 'menu', 'aria-expanded': 'false',
      'aria-controls': 'profile-menu', 'aria-label': 'More', title: 'More' }, '…');
    const menu = h('div', { id: 'profile-menu', class: 'profile-menu', role: 'menu', 'aria-label': 'More', hidden: true },
      h('a', { href: '#/settings', class: 'menu-item', role: 'menuitem' }, 'Settings'),
      requestsLink,
      h('a', { href: '#/saved', class: 'menu-item', role: 'menuitem' }, 'Saved posts'),
      h('a', { href: '#/lists', class: 'menu-item', role: 'menuitem' }, 'Lists'),
      h('a', { href: '#/collections', class: 'menu-item', role: 'menuitem' }, 'Collections'),
      h('a', { href: '#/messages', class: 'menu-item', role: 'menuitem' }, 'Messages'),
      h('a', { href: '#/scheduled', class: 'menu-item', role: 'menuitem' }, 'Scheduled posts'),
      h('a', { href: '#/year', class: 'menu-item', role: 'menuitem' }, 'Your year'),
      user.moderator ? h('a', { href: '#/reports', class: 'menu-item', role: 'menuitem' }, 'Reports') : null,
      signOut);
    const showMenu = (open) => {
      menu.hidden = !open;
      more.setAttribute('aria-expanded', String(open));
      if (open) menu.querySelector('.menu-item:not([hidden])').focus();
    };
    more.addEventListener('click', () => showMenu(menu.hidden));
    // Escape closes the menu; the arrow keys, Home and End move between its items.
    menu.addEventListener('keydown', (event) => {
      const items = [...menu.querySelectorAll('.menu-item:not([hidden])')];
      const at = items.indexOf(document.activeElement);
      const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[event.key];
      if (event.key === 'Escape') {
        showMenu(false);
        more.focus();
      } else if (to !== undefined) {
        event.preventDefault();
        items[(to + items.length) % items.length].focus();
      }
    });
    const closeOutside = (event) => {
      if (!menu.isConnected) document.removeEventListener('click', closeOutside);
      else if (!menu.hidden && !menu.contains(event.target) && event.target !== more) showMenu(false);
    };
    document.addEventListener('click', closeOutside);
    edit.addEventListener('click', () => {
      const open = edit.getAttribute('aria-expanded') === 'true';
      edit.setAttribute('aria-expanded', open ? 'false' : 'true');
      if (open) replace(editor);
      else openEditor();
    });
    signOut.addEventListener('click', async () => {
      signOut.disabled = true;
      await api.signOut().catch(() => {});
      app.navigate('#/signin');
    });
    append(buttons, [edit, h('div', { class: 'menu-holder' }, more, menu)]);

    const openEditor = () => {
      const form = h('form', { id: 'profile-editor', class: 'panel', novalidate: true },
        field('profile-username', 'Username', { name: 'username', value: user.username, autocomplete: 'username', required: true }),
        field('profile-bio', 'Bio', { name: 'bio', rows: '3', value: user.bio || '' }, 'textarea'),
        field('profile-url', 'Website', { name: 'url', type: 'url', value: user.url || '', placeholder: 'https://' }),
        field('profile-image', 'Profile photo', { name: 'image', type: 'file', accept: 'image/*' }),
        user.avatar ? h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'removePhoto', value: 'yes' }), ' Remove profile photo') : null,
        h('label', { class: 'check', for: 'profile-discoverable' },
          h('input', { type: 'checkbox', id: 'profile-discoverable', name: 'discoverable', checked: user.discoverable !== false }),
          ' Let people who have my email address find me'),
        h('label', { class: 'check', for: 'profile-locked' },
          h('input', { type: 'checkbox', id: 'profile-locked', name: 'locked', checked: Boolean(user.locked) }),
          ' Private account: I approve who follows me, and my new posts are for followers'),
        h('p', { class: 'error form-error', role: 'alert' }),
        h('div', { class: 'row' },
          h('button', { type: 'submit', class: 'primary' }, 'Save'),
          h('button', { type: 'button', class: 'secondary', onclick: () => { replace(editor); edit.setAttribute('aria-expanded', 'false'); edit.focus(); } }, 'Cancel')));
      form.querySelector('#profile-bio').value = user.bio || '';
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        clearErrors(form);
        const values = Object.fromEntries(new FormData(form));
        const file = form.querySelector('#profile-image').files[0];
        const changes = {};
        if (values.username !== user.username) changes.username = values.username;
        if (values.bio !== (user.bio || '')) changes.bio = values.bio;
        if (values.url !== (user.url || '')) changes.url = values.url;
        const discoverable = form.querySelector('#profile-discoverable').checked;
        if (discoverable !== (user.discoverable !== false)) changes.discoverable = discoverable;
        const locked = form.querySelector('#profile-locked').checked;
        if (locked !== Boolean(user.locked)) changes.locked = locked;
        try {
          if (Object.keys(changes).length) Object.assign(user, await api.updateProfile(changes));
          if (file) Object.assign(user, await api.setAvatar(file));
          else if (values.removePhoto) Object.assign(user, await api.removeAvatar());
          renderPhoto();
          replace(heading, user.username, user.locked ? h('span', { class: 'locked', title: 'Private account' }, ' 🔒') : null);
          requestsLink.hidden = !user.locked;
          renderAbout();
          replace(editor);
          edit.setAttribute('aria-expanded', 'false');
          edit.focus();
        } catch (error) {
          showError(form, error);
        }
      });
      replace(editor, form);
      form.querySelector('input').focus();
    };
  } else if (me) {
    const follow = h('button', { type: 'button', class: 'primary' });
    // A private account's Follow asks: the button says Requested until the owner answers
    // (pressing it again withdraws the request).
    const renderFollow = () => {
      follow.textContent = user.followedByViewer ? 'Unfollow' : user.requestedByViewer ? 'Requested' : 'Follow';
      follow.className = user.followedByViewer || user.requestedByViewer ? 'secondary' : 'primary';
    };
    // The bell: be told of each of their posts (while following, or asking to).
    const bell = h('button', { type: 'button', class: 'secondary notify' });
    const renderBell = () => {
      bell.hidden = !(user.followedByViewer || user.requestedByViewer);
      bell.textContent = user.notifiesViewer ? 'Notifying' : 'Notify me';
      bell.setAttribute('aria-pressed', user.notifiesViewer ? 'true' : 'false');
      bell.title = user.notifiesViewer ? `Stop telling me when @${user.username} posts` : `Tell me when @${user.username} posts`;
    };
    toggle(follow, {
      isOn: () => user.followedByViewer || user.requestedByViewer,
      set: async (wanted) => {
        await (wanted ? api.follow(user.id) : api.unfollow(user.id));
        Object.assign(user, await api.user(user.id).catch(() => ({})));
        renderCounts();
      },
      render: () => { renderFollow(); renderBell(); },
    });
    toggle(bell, {
      isOn: () => user.notifiesViewer === true,
      set: async (wanted) => {
        await api.follow(user.id, wanted);
        user.notifiesViewer = wanted;
      },
      render: renderBell,
    });
    // Feature on profile: only an account the viewer follows (the endorsement ends with the follow).
    const endorse = endorseButton(user);
    const renderEndorse = () => { endorse.hidden = !user.followedByViewer; };
    follow.addEventListener('click', () => setTimeout(renderEndorse, 0));
    buttons.append(follow, bell, endorse);

    // Mute/Unmute: their posts and doings leave the viewer's timeline and activity; they are
    // not told. Muting asks for how long, as Mastodon does.
    const mute = h('button', { type: 'button', class: 'secondary mute', 'aria-expanded': 'false' });
    const muteChoices = h('div', { class: 'panel mute-choices', hidden: true, role: 'group', 'aria-label': `Mute ${user.username} for how long` },
      h('p', {}, `Hide @${user.username}'s posts and activity from you? They will not be told.`),
      ...[['Until I unmute', 0], ['For 1 hour', 3600], ['For 1 day', 86400], ['For 7 days', 604800]].map(([label, seconds]) =>
        h('button', { type: 'button', class: 'secondary', 'data-duration': String(seconds), onclick: () => setMute(true, seconds) }, label)),
      h('p', { class: 'error', role: 'alert' }));
    const renderMute = () => {
      mute.textContent = user.mutedByViewer ? 'Unmute' : 'Mute';
      mute.setAttribute('aria-pressed', user.mutedByViewer ? 'true' : 'false');
    };
    const setMute = async (wanted, seconds = 0) => {
      mute.disabled = true;
      muteChoices.querySelector('.error').textContent = '';
      try {
        await (wanted ? api.mute(user.id, seconds) : api.unmute(user.id));
        user.mutedByViewer = wanted;
        muteChoices.hidden = true;
        mute.setAttribute('aria-expanded', 'false');
      } catch (error) {
        muteChoices.hidden = false;
        muteChoices.querySelector('.error').textContent = error.message;
      } finally {
        mute.disabled = false;
        renderMute();
      }
    };
    mute.addEventListener('click', () => {
      if (user.mutedByViewer) return setMute(false);
      muteChoices.hidden = !muteChoices.hidden;
      mute.setAttribute('aria-expanded', muteChoices.hidden ? 'false' : 'true');
      return undefined;
    });
    renderMute();
    buttons.append(mute);

    // Block/Unblock: a block ends the follows both ways.
    const block = h('button', { type: 'button', class: 'secondary block' });
    const renderBlock = () => {
      block.textContent = user.blockedByViewer ? 'Unblock' : 'Block';
      block.setAttribute('aria-pressed', user.blockedByViewer ? 'true' : 'false');
      follow.hidden = Boolean(user.blockedByViewer);
    };
    toggle(block, {
      isOn: () => user.blockedByViewer,
      confirmOn: (wanted) => !wanted || confirm(`Block @${user.username}? You will stop following each other.`),
      set: async (wanted) => {
        await (wanted ? api.block(user.id) : api.unblock(user.id));
        user.blockedByViewer = wanted;
        // A block ends the follows both ways: the counts come back from the server.
        Object.assign(user, await api.user(user.id).catch(() => ({})));
        renderCounts();
        renderFollow();
      },
      render: renderBlock,
    });
    buttons.append(block);
    // Another server's account: its whole server can be blocked too (Mastodon's domain block).
    const server = user.username.includes('@') ? user.username.slice(user.username.indexOf('@') + 1) : null;
    if (server) {
      const blockServer = h('button', { type: 'button', class: 'secondary block-server' });
      let serverBlocked = false;
      const renderServer = () => {
        blockServer.textContent = serverBlocked ? `Unblock ${server}` : `Block ${server}`;
        blockServer.setAttribute('aria-pressed', serverBlocked ? 'true' : 'false');
      };
      toggle(blockServer, {
        isOn: () => serverBlocked,
        confirmOn: (wanted) => !wanted
          || confirm(`Block ${server}? You will see nothing from its accounts, and your follows with them end.`),
        set: async (wanted) => {
          await (wanted ? api.blockServer(server) : api.unblockServer(server));
          serverBlocked = wanted;
          // The follows with its accounts end: the counts come back from the server.
          Object.assign(user, await api.user(user.id).catch(() => ({})));
          renderCounts();
          renderFollow();
        },
        render: renderServer,
      });
      api.blockedServers().then(({ servers }) => {
        serverBlocked = servers.includes(server);
        renderServer();
      }).catch(() => {});
      buttons.append(blockServer);
    }
    editor.append(muteChoices);
    editor.append(noteField(user));
    editor.append(reportControl(user.id, {
      label: 'Report account', thanks: `Thank you: the moderators will look at @${user.username}.`,
      send: (reason) => api.reportUser(user.id, reason),
    }));
  }

  const header = h('section', { class: 'profile', 'aria-labelledby': 'profile-name' },
    photo,
    h('div', { class: 'profile-main' },
      Object.assign(heading, { id: 'profile-name' }),
      counts,
      about,
      buttons));

  // A private account's posts are for its followers: anyone else sees the profile, its counts
  // and Follow (a request), and no grid.
  if (user.locked && !own && !user.followedByViewer) {
    replace(root, header, editor,
      h('div', { class: 'empty private-account' },
        h('h2', {}, 'This account is private'),
        h('p', {}, 'Follow this account to see their photos.')));
    return undefined;
  }

  // The posts, as a grid or a list.
  let view = localStorage.getItem(VIEW_KEY) === 'list' ? 'list' : 'grid';
  const grid = h('ul', { class: 'grid' });
  const list = h('div', { class: 'feed' });
  const posts = [];
  const gridButton = h('button', { type: 'button', class: 'toggle' }, 'Grid');
  const listButton = h('button', { type: 'button', class: 'toggle' }, 'List');
  const showView = () => {
    gridButton.setAttribute('aria-pressed', String(view === 'grid'));
    listButton.setAttribute('aria-pressed', String(view === 'list'));
    grid.hidden = view !== 'grid';
    list.hidden = view !== 'list';
  };
  const choose = (wanted) => () => {
    view = wanted;
    localStorage.setItem(VIEW_KEY, view);
    showView();
  };
  gridButton.addEventListener('click', choose('grid'));
  listButton.addEventListener('click', choose('list'));
  showView();

  const sentinel = h('div', { class: 'more' });
  const empty = h('p', { class: 'empty', hidden: true }, own ? 'Share your first photo with New post.' : 'No posts yet.');

  const featured = featuredPanel(user);
  const highlights = highlightsPanel(user, app.me);
  const pinnedIds = await showPinned(user, grid, list);
  replace(root,
    header,
    editor,
    highlights,
    featured,
    collectionsPanel(user),
    h('div', { class: 'view-toggle', role: 'group', 'aria-label': 'Show posts as' }, gridButton, listButton),
    h('h2', { class: 'visually-hidden' }, `Posts by ${user.username}`),
    empty,
    grid,
    list,
    sentinel);

  return cursorPager(sentinel, (before) => api.userPosts(user.id, before), (page) => {
    for (const post of page.items) {
      posts.push(post);
      if (pinnedIds.has(post.id)) continue;  // shown first, as pinned
      grid.append(postTile(post));
      list.append(postCard(post));
    }
    empty.hidden = posts.length > 0;
  }, { endText: '' });
}
