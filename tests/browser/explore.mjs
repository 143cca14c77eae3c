// Drive the explorer in Debian's Chromium: find a belief, click its root item, report what is drawn.
// node tests/browser/explore.mjs <base url> <belief id> <root item id> <screenshot path> [token]
import { chromium } from "playwright-core";

const [base, beliefId, itemId, screenshot, token] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const report = { errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  page.on("pageerror", (e) => report.errors.push(String(e)));
  report.walks = [];  // the item walks the page asks for, as sent
  page.on("request", (r) => {
    const body = r.method() === "POST" && r.url().endsWith("/graphql") ? r.postData() || "" : "";
    if (body.includes("upstream(") || body.includes("dependents(")) report.walks.push(JSON.parse(body).query);
  });
  await page.goto(`${base}/explorer`);
  if (token) {
    // Without the token the API refuses, and the page says so.
    await page.fill("#query", beliefId);
    await page.click("button[type=submit]");
    await page.waitForFunction(() => document.getElementById("status").textContent.length > 0, null, { timeout: 15000 });
    report.withoutToken = await page.textContent("#status");
    await page.fill("#token", token);
  }
  await page.fill("#query", beliefId);
  await page.click("button[type=submit]");
  await page.waitForFunction((id) => window.explorer.settled >= 1
                             && window.explorer.drawn().some((n) => n.id === id && n.kind === "Item"), itemId,
                             { timeout: 15000 })
    .catch(async (e) => { throw new Error(`${e.message}; the page says: ${await page.textContent("#status")}`); });
  report.afterFind = await page.evaluate(() => window.explorer.drawn());
  // A real click on the root item's node, where Cytoscape drew it.
  const where = await page.evaluate((id) => {
    const box = document.getElementById("graph").getBoundingClientRect();
    const p = window.explorer.cy.getElementById(id).renderedPosition();
    return { x: box.left + p.x, y: box.top + p.y };
  }, itemId);
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.mouse.click(where.x, where.y);
  await page.waitForFunction((id) => window.explorer.settled >= 2
                             && window.explorer.cy.getElementById(id).data("expanded") === true, itemId,
                             { timeout: 15000 })
    .catch(async (e) => {
      await page.screenshot({ path: screenshot });
      throw new Error(`${e.message}; the page says: ${await page.textContent("#status")}; clicked at ${JSON.stringify(where)}`);
    });
  report.afterClick = await page.evaluate(() => window.explorer.drawn());
  report.details = await page.textContent("#details");
  report.edges = await page.evaluate(() => window.explorer.cy.edges().map((e) => e.data("label")));
  await page.screenshot({ path: screenshot });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));
