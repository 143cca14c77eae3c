// The README's picture of a belief's neighbourhood as Neo4j Browser draws it.
// With `make neo4j` and `NEO4J_URI=bolt://127.0.0.1:7687 make serve` running and a belief seeded:
//   node tools/screenshot_neo4j_browser.mjs <belief id> [output png]
import { chromium } from "playwright-core";

const [beliefId, output = "docs/images/neo4j-browser-belief.png"] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto("http://127.0.0.1:7474/browser/?dbms=neo4j://127.0.0.1:7687&preselectAuthMethod=NO_AUTH");
  await page.waitForSelector(".monaco-editor", { timeout: 30000 });
  await page.waitForTimeout(3000);
  await page.click(".monaco-editor");
  await page.keyboard.type(`MATCH p=(b:Belief {id: '${beliefId}'})<-[:BEARS_ON]-(:Evidence)-[:FROM|ROOTED_IN]->(x) ` +
                           "OPTIONAL MATCH q=(x)-[:DERIVED_FROM]->(:Item) RETURN p, q");
  await page.keyboard.press("Control+Enter");
  await page.waitForTimeout(7000);
  await page.screenshot({ path: output, clip: { x: 70, y: 128, width: 1300, height: 540 } });
} finally {
  await browser.close();
}
