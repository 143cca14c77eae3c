// GraphiQL in Debian's Chromium with every non-local request blocked: run a query, report what it shows.
// node tests/browser/graphiql.mjs <base url> <screenshot path> [token]
// With a token: a query first runs without it (refused, and GraphiQL shows why), then with the token
// in GraphiQL's Headers tab.
import { chromium } from "playwright-core";

const [base, screenshot, token] = process.argv.slice(2);
const local = new URL(base).host;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const report = { errors: [], blocked: [], requested: [], failed: [] };

// The editors are CodeMirror 5 instances; the DOM node carries each one.
const editor = (selector) => `document.querySelector(${JSON.stringify(selector)}).CodeMirror`;
async function run(page, query) {
  await page.evaluate(`${editor(".graphiql-query-editor .CodeMirror")}.setValue(${JSON.stringify(query)})`);
  await page.evaluate(`${editor(".result-window .CodeMirror")}.setValue("")`);
  await page.click(".graphiql-execute-button");
  await page.waitForFunction(`${editor(".result-window .CodeMirror")}.getValue().length > 0`, null,
                             { timeout: 15000 });
  return JSON.parse(await page.evaluate(`${editor(".result-window .CodeMirror")}.getValue()`));
}

try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  // Offline but for the service: anything else is aborted and reported.
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.host === local || url.protocol === "data:") return route.continue();
    report.blocked.push(url.toString());
    return route.abort();
  });
  const page = await context.newPage();
  page.on("pageerror", (e) => report.errors.push(String(e)));
  page.on("request", (r) => report.requested.push(r.url()));
  page.on("requestfailed", (r) => report.failed.push(r.url()));
  const answer = await page.goto(`${base}/graphql`);
  report.pageStatus = answer.status();
  await page.waitForSelector(".graphiql-execute-button", { timeout: 30000 });
  if (token) {
    report.withoutToken = await run(page, "{ head { seq } }");
    await page.getByRole("button", { name: "Headers" }).click();
    // Typed as a person would, into the Headers editor (the visible one of the two tools).
    const headers = page.locator(".graphiql-editor-tool .CodeMirror:visible");
    await headers.click();
    await page.keyboard.type(JSON.stringify({ Authorization: `Bearer ${token}` }));
    report.headers = await headers.evaluate((e) => e.CodeMirror.getValue());
    await page.waitForTimeout(500); // GraphiQL takes an editor's text after a short debounce
  }
  report.result = await run(page, "{ head { seq } journal(first: 1) { totalCount } }");
  await page.screenshot({ path: screenshot });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));
