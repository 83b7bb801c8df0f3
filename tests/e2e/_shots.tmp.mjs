import { openBrowser, PHONE, DESKTOP } from './harness.mjs';
import { HEADINGS, photograph, section, settled } from './page-helpers.mjs';
const b = await openBrowser();
for (const [name, dev, opt] of [['desk', DESKTOP, {}], ['phone', PHONE, { scale: 'css' }]]) {
  const page = await b.newPage(dev);
  await page.goto(b.url);
  await page.waitForSelector('body[data-ready="true"]');
  await settled(page);
  for (const h of (process.env.ONLY ?? HEADINGS.join('|')).split('|')) await photograph(section(page, h), `/tmp/pg/${name}-${h.split(' ')[0].toLowerCase()}.png`, opt);
  await page.close();
}
console.log(b.problems);
await b.close();
