// graphql-schema-linter's configuration (tests/test_schema_lint.py runs it over schema.graphql).
// Every rule of the package runs except those below, each with why.

// Rejected:
const REJECTED = {
  // The enum values are the very strings the journal records (`kind: fact`, `direction: against`),
  // so a client writes what payloads and results say; capitals would be a second spelling of each.
  'enum-values-all-caps': true,
  // Their order means something (sources strongest first) and is the domain tuples' order.
  'enum-values-sorted-alphabetically': true,
  // Fields come in reading order (id first, then what the thing is, then its state).
  'type-fields-sorted-alphabetically': true,
  'input-object-fields-sorted-alphabetically': true,
  // A description that starts with a value or a formula keeps its spelling ("for, against, or none
  // ...", "entry-<seq>: ...", "weight × credibility.").
  'descriptions-are-capitalized': true,
  // Our connections page forwards only (first, after); the rule also demands last and before.
  'relay-connection-arguments-spec': true,
};

const ALL = [
  'arguments-have-descriptions',
  'defined-types-are-used',
  'deprecations-have-a-reason',
  'descriptions-are-capitalized',
  'enum-values-all-caps',
  'enum-values-have-descriptions',
  'enum-values-sorted-alphabetically',
  'fields-are-camel-cased',
  'fields-have-descriptions',
  'input-object-fields-sorted-alphabetically',
  'input-object-values-are-camel-cased',
  'input-object-values-have-descriptions',
  'interface-fields-sorted-alphabetically',
  'relay-connection-arguments-spec',
  'relay-connection-types-spec',
  'relay-page-info-spec',
  'type-fields-sorted-alphabetically',
  'types-are-capitalized',
  'types-have-descriptions',
];

module.exports = { rules: ALL.filter((rule) => !REJECTED[rule]) };
