import type { Request, Response } from 'express';

/**
 * GET /docs: a self-contained API reference rendered from the OpenAPI document (no CDN,
 * no script: the machines this runs on may have no internet).
 */
export function docsPage(document: Record<string, unknown>) {
  const html = renderDocs(document);
  return function docsPageHandler(_request: Request, response: Response): void {
    response.type('text/html; charset=utf-8').setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
    response.send(html);
  };
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const schemaBlock = (label: string, schema: unknown): string =>
  `<details><summary>${escape(label)}</summary><pre>${escape(JSON.stringify(schema, null, 2))}</pre></details>`;

export function renderDocs(document: Record<string, unknown>): string {
  const info = (document.info ?? {}) as { title?: string; version?: string; description?: string };
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  const sections: string[] = [];
  const toc: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const anchor = `${method}-${path}`.replace(/[^\w-]+/g, '-');
      toc.push(`<li><a href="#${anchor}"><code class="m-${method}">${method.toUpperCase()}</code> ${escape(path)}</a></li>`);
      const security = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
      const parts: string[] = [
        `<section id="${anchor}"><h2><code class="m-${method}">${method.toUpperCase()}</code> ${escape(path)}</h2>`,
        operation.summary ? `<p class="summary">${escape(operation.summary)}</p>` : '',
        operation.description ? `<p>${escape(operation.description)}</p>` : '',
        `<p class="auth">Authentication: ${security.length ? security.map((name) => `<code>${escape(name)}</code>`).join(' or ') : 'none'}</p>`,
      ];
      if (operation.parameters?.length) {
        parts.push('<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Description</th></tr>');
        for (const parameter of operation.parameters) {
          parts.push(
            `<tr><td><code>${escape(parameter.name)}</code></td><td>${escape(parameter.in)}</td><td>${parameter.required ? 'yes' : 'no'}</td><td>${escape(parameter.description ?? '')}</td></tr>`,
          );
        }
        parts.push('</table>');
      }
      for (const [type, content] of Object.entries(operation.requestBody?.content ?? {})) {
        parts.push(schemaBlock(`Request body (${type})`, content.schema));
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const [type, content] of Object.entries(response.content ?? {})) {
          parts.push(schemaBlock(`${status} ${response.description ?? ''} (${type})`, content.schema));
        }
      }
      parts.push('</section>');
      sections.push(parts.join('\n'));
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(info.title ?? 'API reference')}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
header{background:#1d2330;color:#fff;padding:1rem 1.5rem}header a{color:#9cf}
main{display:grid;grid-template-columns:minmax(14rem,20rem) 1fr;gap:1.5rem;padding:1.5rem}
nav ul{list-style:none;padding:0;margin:0}nav li{margin:.2rem 0}nav a{text-decoration:none;color:inherit}
section{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:1rem 1.25rem;margin-bottom:1rem}
h2{font-size:1.05rem;margin:0 0 .5rem}pre{background:#f3f5f8;padding:.75rem;overflow:auto;font-size:12.5px}
code{font-family:ui-monospace,monospace}.m-get{color:#0a7}.m-post{color:#06c}.m-patch{color:#b60}.m-delete{color:#c33}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #dde1e7;padding:.25rem .5rem;text-align:left}
.summary{font-weight:600}@media(max-width:700px){main{grid-template-columns:1fr}}
</style></head><body>
<header><h1>${escape(info.title ?? 'API reference')} <small>${escape(info.version ?? '')}</small></h1>
<p>${escape(info.description ?? '')} The machine-readable document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</p></header>
<main><nav aria-label="Operations"><ul>${toc.join('')}</ul></nav><div>${sections.join('\n')}</div></main>
</body></html>`;
}
