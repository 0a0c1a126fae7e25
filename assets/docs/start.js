// Renders /openapi.json with the Scalar API reference that the Worker serves beside this file
// (assets/docs/vendor/, copied from the @scalar/api-reference package by `npm install`). Nothing is
// loaded from elsewhere: no web fonts, no telemetry, no AI agent, no MCP and no request proxy, so the
// page works offline and under the Content-Security-Policy that /docs sends (src/routes/docs.ts).
/* global Scalar */
Scalar.createApiReference('#app', {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
});
