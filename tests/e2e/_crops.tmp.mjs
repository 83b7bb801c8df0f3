import { openBrowser, PHONE, DESKTOP } from './harness.mjs';
import { HEADINGS, section, settled } from './page-helpers.mjs';
const b = await openBrowser();
const dev = process.env.DEV === 'desk' ? DESKTOP : PHONE;
const page = await b.newPage(dev);
await page.goto(b.url);
await page.waitForSelector('body[data-ready="true"]');
await settled(page);
const H = Number(process.env.H ?? 1400);
for (const h of (process.env.ONLY ?? HEADINGS.join('|')).split('|')) {
  const s = section(page, h);
  await s.evaluate((el) => el.scrollIntoView());
  await settled(page);
  const top = await s.evaluate((el) => el.getBoundingClientRect().top + scrollY);
  const height = await s.evaluate((el) => el.getBoundingClientRect().height);
  for (let k = 0, y = top; y < top + height; k++, y += H) {
    await page.screenshot({ path: `/tmp/pg/crops/${process.env.DEV ?? 'phone'}-${h.split(' ')[0].toLowerCase()}-${k}.png`, fullPage: true, scale: 'css', clip: { x: 0, y, width: dev.viewport.width, height: Math.min(H, top + height - y) } });
  }
}
await b.close();
