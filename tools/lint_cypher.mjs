#!/usr/bin/env node
// Lint Cypher files with Neo4j's own Cypher front end (npm @neo4j-cypher/language-support,
// `lintCypherQuery`: the ANTLR grammar plus Neo4j's semantic analysis compiled to JavaScript).
// SPEC §1.1: every cypher/*.cypher file must have zero diagnostics other than
// undeclared-parameter notices.
//
// Usage: node tools/lint_cypher.mjs [FILE ...]    (default: every cypher/*.cypher of the repo)
//
// Prints one JSON document on stdout:
//   {"linter": {...}, "parameters": {"<path>": ["id", ...]},
//    "files": {"<path>": [{"severity", "message", "line", "col"}, ...]}}
// line and col are 1-based. Exit status: 0 whenever the lint ran (the caller judges the
// diagnostics); non-zero only when the linter itself failed (package missing, unreadable
// file, front-end self-check failed).
//
// The dbSchema given to lintCypherQuery:
// - functions: the package's built-in function registry (testData.mockSchema.functions,
//   entries with isBuiltIn === true), so APOC/GDS or misspelt functions are reported;
// - procedures: the same registry's procedures minus the plugin namespaces (apoc, gds:
//   the namespaces that only hold non-built-in functions), so `CALL db.awaitIndexes()`
//   passes and `CALL apoc.…` is reported;
// - parameters: the file's own parameters, found with the package's parseParameters, so
//   "Parameter $x is not defined." is not raised (isNotParamError filters any left over);
// - no labels / relationship types / property keys (the schema is ours, not a database's).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = '@neo4j-cypher/language-support';
const CYPHER_VERSION = 'CYPHER 5'; // Neo4j 5 is the production target (SPEC §1.1)
const SEVERITY = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };

function die(message) {
  process.stderr.write(`lint_cypher: ${message}\n`);
  process.exit(2);
}

let ls;
try {
  ls = await import(PACKAGE);
} catch (err) {
  die(`cannot load ${PACKAGE} (${err.message}); run \`npm ci\` in ${ROOT}`);
}
const { lintCypherQuery, isNotParamError, parseParameters, testData } = ls;
if (typeof lintCypherQuery !== 'function' || typeof isNotParamError !== 'function' ||
    typeof parseParameters !== 'function' || !testData?.mockSchema?.functions) {
  die(`${PACKAGE} does not export lintCypherQuery/isNotParamError/parseParameters/testData`);
}

function packageVersion() {
  try {
    const file = path.join(ROOT, 'node_modules', ...PACKAGE.split('/'), 'package.json');
    return JSON.parse(readFileSync(file, 'utf8')).version;
  } catch {
    return null;
  }
}

// Built-in functions per Cypher version, and the plugin namespaces they exclude.
const functions = {};
const builtInNamespaces = new Set();
const otherNamespaces = new Set();
for (const [version, registry] of Object.entries(testData.mockSchema.functions)) {
  functions[version] = {};
  for (const [name, fn] of Object.entries(registry)) {
    const namespace = name.includes('.') ? name.split('.')[0] : '';
    if (fn.isBuiltIn === true) {
      functions[version][name] = fn;
      builtInNamespaces.add(namespace);
    } else {
      otherNamespaces.add(namespace);
    }
  }
}
const pluginNamespaces = [...otherNamespaces].filter((ns) => ns && !builtInNamespaces.has(ns)).sort();
const procedures = {};
for (const [version, registry] of Object.entries(testData.mockSchema.procedures ?? {})) {
  procedures[version] = Object.fromEntries(
    Object.entries(registry).filter(([name]) => !pluginNamespaces.includes(name.split('.')[0])),
  );
}
if (!Object.keys(functions[CYPHER_VERSION] ?? {}).length) {
  die(`${PACKAGE} has no built-in function registry for ${CYPHER_VERSION}`);
}

const OPTIONS = { consoleCommandsEnabled: false }; // a file is Cypher, not a Browser script

function lint(text) {
  const parameters = Object.fromEntries(parseParameters(text, false).map((p) => [p, null]));
  const dbSchema = { functions, procedures, parameters, defaultLanguage: CYPHER_VERSION };
  const { diagnostics } = lintCypherQuery(text, dbSchema, OPTIONS);
  const found = diagnostics.filter(isNotParamError).map((d) => ({
    severity: SEVERITY[d.severity] ?? String(d.severity),
    message: d.message,
    line: d.range.start.line + 1,
    col: d.range.start.character + 1,
  }));
  // lintCypherQuery says nothing about an empty file (it does about a comment-only one).
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '').replace(/;/g, '');
  if (!code.trim() && !found.length) {
    found.push({ severity: 'error', message: 'lint_cypher: the file holds no Cypher statement', line: 1, col: 1 });
  }
  return { diagnostics: found, parameters: Object.keys(parameters).sort() };
}

// The semantic analysis swallows its own exceptions (returns no diagnostics), so prove
// once per run that the whole front end works on this Node before trusting a clean result.
const PROBES = [
  ['MATCH (n:Item {id: $id} RETURN n', /^Invalid input/],
  ['MATCH (n) RETURN m', /^Variable `m` not defined/],
  ['RETURN apoc.coll.sum([1, 2]) AS total', /^Function apoc\.coll\.sum is not present/],
  ['RETURN toLower(1, 2) AS x', /^Too many parameters for function 'toLower'/],
  ['CALL apoc.help("coll")', /^Procedure apoc\.help is not present/],
];
for (const [query, expected] of PROBES) {
  const { diagnostics } = lint(query);
  if (!diagnostics.some((d) => expected.test(d.message))) {
    die(`self-check failed on Node ${process.version}: ${JSON.stringify(query)} gave ` +
        `${JSON.stringify(diagnostics)}, expected a diagnostic matching ${expected}`);
  }
}
for (const query of ['MATCH (n:Item {id: $id}) RETURN n.status AS status', 'CALL db.awaitIndexes(300)']) {
  const { diagnostics } = lint(query);
  if (diagnostics.length) die(`self-check failed: ${JSON.stringify(query)} gave ${JSON.stringify(diagnostics)}`);
}

// [key printed in the output, path read]: arguments as given (relative to the working
// directory); by default cypher/<name>.cypher relative to the repository root.
let files = process.argv.slice(2).map((f) => [f, f]);
if (!files.length) {
  const dir = path.join(ROOT, 'cypher');
  let names = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.cypher')).sort();
  } catch (err) {
    if (err.code !== 'ENOENT') die(`cannot list ${dir}: ${err.message}`);
  }
  files = names.map((n) => [`cypher/${n}`, path.join(dir, n)]);
}

const started = process.hrtime.bigint();
const out = {
  linter: {
    package: PACKAGE,
    version: packageVersion(),
    node: process.version,
    cypher_version: CYPHER_VERSION,
    plugin_namespaces: pluginNamespaces,
    seconds: 0,
  },
  parameters: {},
  files: {},
};
for (const [file, source] of files) {
  let text;
  try {
    text = readFileSync(source, 'utf8');
  } catch (err) {
    die(`cannot read ${file}: ${err.message}`);
  }
  const { diagnostics, parameters } = lint(text);
  out.files[file] = diagnostics;
  out.parameters[file] = parameters;
}
out.linter.seconds = Number(process.hrtime.bigint() - started) / 1e9;
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
