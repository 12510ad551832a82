// Your year (Mastodon's annual report): #/year shows the signed-in user's report of the current
// year, #/year/YYYY another year's. A year not asked for yet offers "Make my report" (a year from
// the account's first to now); once made, the report's figures: what kind of poster the year
// shows, the most boosted, liked and commented posts, month by month what was posted and whom
// they followed and were followed by, and the hashtags used most. Opening it marks it read.
import { api } from './api.js';
import { h, replace, showError } from './dom.js';

const ARCHETYPES = {
  lurker: 'The lurker: you mostly read and watched.',
  booster: 'The booster: you shared others\u2019 posts more than your own.',
  pollster: 'The pollster: you asked your followers what they thought.',
  replier: 'The replier: you talked with people more than you posted.',
  oracle: 'The oracle: you mostly posted your own.',
};
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];

export async function render(root, { params }) {
  const year = params[0] || String(new Date().getUTCFullYear());
  document.title = `Your ${year} · Timeline`;
  const answer = await api.annualReport(year);
  const heading = h('h1', {}, `Your ${year}`);
  const others = h('p', { class: 'muted' },
    h('a', { href: `#/year/${Number(year) - 1}` }, `${Number(year) - 1}`));
  if (!answer.report) {
    if (answer.state !== 'eligible') {
      replace(root, heading, h('p', { class: 'empty' }, `There is no report of ${year} for your account.`), others);
      return;
    }
    const make = h('button', { type: 'button', class: 'primary' }, 'Make my report');
    const form = h('div', { class: 'panel' }, h('p', {}, `See what your ${year} on Timeline was.`), make,
      h('p', { class: 'error form-error', role: 'alert' }));
    make.addEventListener('click', async () => {
      try {
        await api.generateAnnualReport(year);
        await render(root, { params: [year] });
      } catch (error) {
        showError(form, error);
      }
    });
    replace(root, heading, form, others);
    return;
  }
  const report = answer.report;
  if (!report.read) await api.readAnnualReport(year);
  const total = (key) => report.months.reduce((sum, month) => sum + month[key], 0);
  const top = [['Most boosted', report.mostBoosted], ['Most liked', report.mostLiked],
    ['Most commented', report.mostCommented]].filter(([, id]) => id);
  replace(root, heading,
    h('p', { class: 'archetype' }, ARCHETYPES[report.archetype] || report.archetype),
    h('ul', { class: 'year-totals' },
      h('li', {}, h('strong', {}, String(total('statuses'))), ' posts, comments and boosts'),
      h('li', {}, h('strong', {}, String(total('following'))), ' people you followed'),
      h('li', {}, h('strong', {}, String(total('followers'))), ' new followers')),
    top.length ? h('h2', {}, 'Your top posts') : null,
    top.length ? h('ul', { class: 'year-top' },
      ...top.map(([label, id]) => h('li', {}, h('a', { href: `#/post/${encodeURIComponent(id)}` }, label)))) : null,
    h('h2', {}, 'Month by month'),
    h('table', { class: 'year-months' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Month'), h('th', { scope: 'col' }, 'Posts'),
        h('th', { scope: 'col' }, 'Followed'), h('th', { scope: 'col' }, 'Followers'))),
      h('tbody', {}, ...report.months.map((month) => h('tr', {},
        h('th', { scope: 'row' }, MONTHS[month.month - 1]), h('td', {}, String(month.statuses)),
        h('td', {}, String(month.following)), h('td', {}, String(month.followers)))))),
    report.hashtags.length ? h('h2', {}, 'Your hashtags') : null,
    report.hashtags.length ? h('ul', { class: 'year-hashtags' },
      ...report.hashtags.map((tag) => h('li', {}, h('a', { href: `#/tag/${encodeURIComponent(tag.name)}` }, `#${tag.name}`),
        ` ${tag.count} posts`))) : null,
    others);
}
