// The graphql-http package's GraphQL-over-HTTP audits against a running service; prints one JSON report.
// node tests/node/graphql_http_audit.mjs <graphql url> [bearer token]
import { serverAudits } from "graphql-http";

const [url, token] = process.argv.slice(2);
// With tokens configured every request needs one; the audits themselves send none.
const fetchFn = (input, init = {}) => {
  const headers = new Headers(init.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};
const results = [];
for (const audit of serverAudits({ url, fetchFn })) {
  const result = await audit.fn();
  results.push({ id: result.id, name: result.name, status: result.status, reason: result.reason ?? null });
}
const counts = {};
for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
process.stdout.write(JSON.stringify({ counts, results }));
