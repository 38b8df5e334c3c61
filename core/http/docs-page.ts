/**
 * `GET /docs`: a self-contained page that renders `/v1/openapi.json`. No CDN and no external
 * assets, so it works on an air-gapped installation.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Automaton API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
header{background:#1d2330;color:#fff;padding:18px 32px}header h1{margin:0;font-size:22px}
main{max-width:1100px;margin:0 auto;padding:24px 32px}
h2{margin-top:32px;border-bottom:1px solid #d8dce3;padding-bottom:4px;text-transform:capitalize}
details{background:#fff;border:1px solid #d8dce3;border-radius:6px;margin:8px 0}
summary{cursor:pointer;padding:8px 12px;display:flex;gap:12px;align-items:baseline}
.m{font:600 12px monospace;padding:2px 8px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.get{background:#2f7d32}.post{background:#1565c0}.put{background:#8e5b00}.patch{background:#6a1b9a}.delete{background:#b71c1c}
.p{font-family:monospace}.perm{margin-left:auto;font-size:12px;color:#5b6475}
.body{padding:0 16px 12px}pre{background:#f0f2f5;padding:8px;border-radius:4px;overflow:auto;font-size:12px}
table{border-collapse:collapse}td,th{border:1px solid #e1e4ea;padding:3px 8px;font-size:13px;text-align:left}
</style></head>
<body><header><h1>Automaton API</h1><div id="v"></div></header><main id="root">Loading /v1/openapi.json…</main>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
fetch('/v1/openapi.json').then((r) => r.json()).then((doc) => {
  document.getElementById('v').textContent = 'version ' + doc.info.version + ' · OpenAPI ' + doc.openapi;
  const groups = {};
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) {
    const tag = (op.tags && op.tags[0]) || 'other';
    (groups[tag] = groups[tag] || []).push({ path, method, op });
  }
  let html = '';
  // The document's tags are in reading order: what a newcomer needs first.
  const order = (doc.tags || []).map((t) => t.name).filter((name) => groups[name]);
  for (const tag of [...order, ...Object.keys(groups).filter((name) => !order.includes(name)).sort()]) {
    html += '<h2>' + esc(tag) + '</h2>';
    for (const { path, method, op } of groups[tag]) {
      html += '<details><summary><span class="m ' + method + '">' + method.toUpperCase() + '</span><span class="p">' + esc(path) +
        '</span><span>' + esc(op.summary || '') + '</span><span class="perm">' + esc((op['x-permissions'] || []).join(' + ') || (op.security ? 'API key' : 'public')) + '</span></summary><div class="body">';
      if (op.description) html += '<p>' + esc(op.description) + '</p>';
      if (op.parameters) html += '<table><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr>' + op.parameters.map((p) =>
        '<tr><td>' + esc(p.name) + '</td><td>' + p.in + '</td><td>' + (p.required ? 'yes' : '') + '</td><td><code>' + esc(JSON.stringify(p.schema)) + '</code></td></tr>').join('') + '</table>';
      if (op.requestBody) html += '<p>Body</p><pre>' + esc(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2)) + '</pre>';
      for (const [status, r] of Object.entries(op.responses || {})) {
        const c = r.content && Object.values(r.content)[0];
        html += '<p>' + status + ' ' + esc(r.description) + '</p>' + (c && c.schema && !c.schema.$ref ? '<pre>' + esc(JSON.stringify(c.schema, null, 2)) + '</pre>' : '');
      }
      html += '</div></details>';
    }
  }
  document.getElementById('root').innerHTML = html;
}).catch((e) => { document.getElementById('root').textContent = 'Could not load the API description: ' + e; });
</script></body></html>`
