// GraphiQL on this service's /graphql, from files the package ships (no CDN).
// With tokens configured, put {"Authorization": "Bearer <token>"} in the Headers tab: every request
// GraphiQL makes (the schema's introspection included) carries it. The headers are not kept in the
// browser's storage, so a token does not outlive the tab.
"use strict";

const url = new URL("/graphql", window.location.href).toString();
const subscriptionUrl = url.replace(/^http/, "ws");

const DEFAULT_QUERY = `# GraphiQL on graph_service. With tokens configured, open Headers below and add
#   {"Authorization": "Bearer <your token>"}
# then re-fetch the schema (the ↻ button) to get completion and docs.
{
  head { seq hash }
}
`;

const fetcher = GraphiQL.createFetcher({ url, subscriptionUrl });

ReactDOM.createRoot(document.getElementById("graphiql")).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: DEFAULT_QUERY,
    defaultEditorToolsVisibility: true,
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
  }),
);
