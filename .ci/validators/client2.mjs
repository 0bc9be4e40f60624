// A strict MCP client on @modelcontextprotocol/client 2.x, the TypeScript
// SDK's v2 client (installed under the alias mcp-client-2, so that the
// Inspector keeps the 2.x it pins), run against langspec by
// cmd/langspec/validators_test.go in either protocol era:
//
//   node client2.mjs legacy|modern stdio <command> <args...>
//   node client2.mjs legacy|modern http <url> [bearer token]
//
// legacy is the 2025 handshake (initialize, a session over HTTP); modern is
// protocol 2026-07-28 pinned (server/discover, no session, every request
// standing alone). Why it exists: v2 clients hold a 2026-07-28 server to
// rules the Go SDK does not check on its results (a tools/call result
// without resultType is refused), and only a real client finds that.
//
// What it does, each a check in the summary, against a server in flat or
// categories mode (where the meta tools are the tools):
//   - lists tools, resources, resource templates and prompts;
//   - calls every read-only tool once with the good arguments of calls.mjs;
//   - calls every tool with the bad arguments of calls.mjs: the result must
//     parse (no throw), have isError, and name the argument and what it
//     takes;
//   - reads every listed resource and every resource template (TEMPLATES);
//   - gets every prompt (PROMPTS);
//   - completes every argument of every template and prompt (COMPLETIONS);
//   - asks what a client may get wrong: an unknown method (-32601), a
//     cursor this server never gave (-32602 naming the cursor), and in the
//     legacy era logging/setLevel with a level MCP does not define (-32602
//     naming the levels);
//   - in flat mode, cancels a long call: manual_find on the manual in
//     LANGSPEC_VALIDATORS_LONG_MANUAL (a folder of the server's
//     MANUALS_ROOT with many files), after rewriting every file so that
//     the call re-indexes them all, reporting progress; the call is aborted
//     at its first progress notification, must end at once, and the server
//     must answer the next call.
//
// It prints one JSON summary on stdout and exits 1 on any failure (2 on a
// usage error). Side effect: when vault_create is listed, one note is
// written under validators-probe/ in the server's vault, as client.mjs does.

import { Client, StreamableHTTPClientTransport, ProtocolError } from 'mcp-client-2';
import { StdioClientTransport } from 'mcp-client-2/stdio';
import { readdirSync, appendFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CALLS, NOT_CALLED, SETUP, INVALID_CALLS, probeNote } from './calls.mjs';

// Each request is bounded so that a server that never answers fails the
// check instead of hanging the run (the Go test bounds the whole process).
const REQUEST_TIMEOUT_MS = 30_000;

// TEMPLATES: a URI of every resource template, by template name, that the
// test's server can read (a database with go1.25 and go1.26 of the Go spec,
// fixtures/manuals, the vault with the probe note).
const TEMPLATES = {
  document: 'langspec://go/spec',
  'document-version': 'langspec://go/spec/versions/go1.25',
  section: 'langspec://go/spec/sections/Slice_expressions',
  'section-version': 'langspec://go/spec/versions/go1.25/sections/Slice_expressions',
  diff: 'langspec://go/spec/diff/go1.25/go1.26',
  'manual-file': 'langspec://manuals/ops-en/runbooks/db/failover.md',
  'vault-note': `langspec://vault/${probeNote}`,
};

// PROMPTS: the arguments of one good get of every prompt.
const PROMPTS = {
  'collect-from-manuals': { topic: 'failover', manual_id: 'ops-en' },
  'compare-languages': { concept: 'integer overflow' },
  'explain-rule': { language: 'go', topic: 'slice expressions' },
  'learning-plan': { language: 'go', weeks: '2', focus: 'Types' },
  'what-changed': { language: 'go' },
};

// COMPLETIONS: what to type for every argument of a template or prompt and
// a value the answer must hold ('' for free text, which completes to
// nothing), keyed by "reference.argument", else by argument. The context
// of every completion names the Go spec and the ops-en manual.
const COMPLETIONS = {
  language: ['g', 'go'],
  languages: ['g', 'go'],
  doc: ['s', 'spec'],
  version: ['go1.2', 'go1.25'],
  from: ['go1.2', 'go1.25'],
  to: ['go1.2', 'go1.26'],
  section_id: ['Slice_e', 'Slice_expressions'],
  manual_id: ['ops', 'ops-en'],
  'manual-file.path': ['runbooks/db/', 'runbooks/db/failover.md'],
  'vault-note.path': ['validators', 'validators-probe/'],
  weeks: ['1', '1'],
  focus: ['Typ', 'Types'],
  topic: ['fail', ''],
  concept: ['integer', ''],
};
const COMPLETION_CONTEXT = { language: 'go', doc: 'spec', manual_id: 'ops-en' };

// The levels MCP defines, which an error about an unknown level must name.
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

function usage() {
  console.error('usage: node client2.mjs legacy|modern stdio <command> [args...] | node client2.mjs legacy|modern http <url> [bearer-token]');
  process.exit(2);
}

function transportFrom(kind, rest) {
  if (kind === 'stdio' && rest.length >= 1) {
    // The whole environment goes to the server: the test sets VAULT_ROOT
    // and MANUALS_ROOT. Its stderr is echoed, so the test sees its log.
    const t = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: { ...process.env }, stderr: 'pipe' });
    t.stderr?.on('data', (chunk) => process.stderr.write(chunk));
    return t;
  }
  if (kind === 'http' && (rest.length === 1 || rest.length === 2)) {
    const headers = rest[1] ? { Authorization: `Bearer ${rest[1]}` } : {};
    return new StreamableHTTPClientTransport(new URL(rest[0]), { requestInit: { headers } });
  }
  usage();
}

function errMessage(e) {
  if (e instanceof Error) return `${e.name}${e.code !== undefined ? ` ${e.code}` : ''}: ${e.message}`;
  return String(e);
}

function textOf(result) {
  return (result?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join(' ');
}

// anySchema is a Standard Schema that takes any result, for requests the
// client has no schema of (an unknown method).
const anySchema = { '~standard': { version: 1, vendor: 'langspec-validators', validate: (value) => ({ value }) } };

async function main() {
  const [era, kind, ...rest] = process.argv.slice(2);
  if (era !== 'legacy' && era !== 'modern') usage();
  const transport = transportFrom(kind, rest);
  const summary = { transport: kind, era, server: null, checks: [], invalid: [] };
  const check = (name, ok, detail) => summary.checks.push({ check: name, ok, detail });
  const opts = { timeout: REQUEST_TIMEOUT_MS };

  const client = new Client(
    { name: 'langspec-validators-v2', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  try {
    await client.connect(transport, opts);
    summary.server = { info: client.getServerVersion(), protocol: client.getNegotiatedProtocolVersion(), era: client.getProtocolEra() };
    const wantModern = era === 'modern';
    const isModern = client.getProtocolEra() === 'modern';
    check('connect', wantModern === isModern, `${summary.server.info?.name} ${summary.server.info?.version}, protocol ${summary.server.protocol} (${client.getProtocolEra()} era)`);
  } catch (e) {
    check('connect', false, errMessage(e));
    return finish(summary, client);
  }
  const caps = client.getServerCapabilities() ?? {};

  async function list(label, capability, fetch, key) {
    if (!caps[capability]) {
      check(label, false, `no ${capability} capability: langspec offers ${capability}`);
      return [];
    }
    try {
      const items = (await fetch())[key];
      check(label, items.length > 0, `${items.length} listed`);
      return items;
    } catch (e) {
      check(label, false, errMessage(e));
      return [];
    }
  }
  // The v2 client pages through every list itself.
  const tools = await list('tools/list', 'tools', () => client.listTools(undefined, opts), 'tools');
  const resources = await list('resources/list', 'resources', () => client.listResources(undefined, opts), 'resources');
  const templates = await list('resources/templates/list', 'resources', () => client.listResourceTemplates(undefined, opts), 'resourceTemplates');
  const prompts = await list('prompts/list', 'prompts', () => client.listPrompts(undefined, opts), 'prompts');
  const listed = new Map(tools.map((t) => [t.name, t]));

  // Every listed tool has its entries in calls.mjs.
  const goodCalls = new Map(CALLS);
  const badCalls = new Set(INVALID_CALLS.map(([name]) => name));
  for (const tool of tools) {
    const readOnly = tool.annotations?.readOnlyHint === true;
    if (readOnly && !goodCalls.has(tool.name)) check(`call ${tool.name}`, false, 'read-only tool without an entry in CALLS of calls.mjs');
    if (!readOnly && !(tool.name in NOT_CALLED)) check(`call ${tool.name}`, false, 'tool that writes, in neither CALLS nor NOT_CALLED of calls.mjs');
    if (!badCalls.has(tool.name)) check(`invalid ${tool.name}`, false, 'no entry in INVALID_CALLS of calls.mjs: add a bad call');
  }

  // Good calls: the result parses (the client validates structuredContent
  // against the outputSchema itself) and is not an error.
  const state = {};
  async function callGood(name, args, label) {
    try {
      const result = await client.callTool({ name, arguments: args }, opts);
      check(label, !result.isError, result.isError ? `isError: ${textOf(result).slice(0, 300)}` : 'ok');
      return result;
    } catch (e) {
      check(label, false, `threw: ${errMessage(e)}`);
      return undefined;
    }
  }
  for (const [name, argsOf] of SETUP) {
    if (listed.has(name)) await callGood(name, argsOf(state), `setup ${name}`);
    // Categories mode: the same call, through the meta tool (the vault's
    // category is named for its family).
    else if (listed.has('call-category-tool')) await callGood('call-category-tool', { category: 'vault', name, args: argsOf(state) }, `setup ${name}`);
  }
  for (const [name, argsOf] of CALLS) {
    if (listed.get(name)?.annotations?.readOnlyHint !== true) continue;
    const result = await callGood(name, argsOf(state), `call ${name}`);
    if (name === 'manual_find') state.traceId = result?.structuredContent?.trace_id;
  }

  // Bad calls: a result the model reads, never a thrown error.
  for (const [name, args, argument, allowed] of INVALID_CALLS) {
    if (!listed.has(name)) continue;
    const label = `invalid ${name} ${JSON.stringify(args)}`.slice(0, 120);
    let outcome;
    let detail;
    try {
      const result = await client.callTool({ name, arguments: args }, opts);
      const text = textOf(result);
      const wrong = [];
      if (!result.isError) wrong.push('isError is not set');
      if (!text.startsWith('invalid_argument: ')) wrong.push('not an invalid_argument error');
      if (!text.includes(argument)) wrong.push(`does not name ${argument}`);
      if (!allowed.test(text)) wrong.push(`does not say ${allowed}`);
      outcome = wrong.length ? 'fail' : 'pass';
      detail = (wrong.length ? wrong.join(', ') + ': ' : '') + text;
    } catch (e) {
      outcome = 'throw';
      detail = errMessage(e);
    }
    summary.invalid.push({ tool: name, args, outcome, detail });
    check(label, outcome === 'pass', `${outcome}: ${detail}`.slice(0, 600));
  }

  // Resources: every listed one and every template.
  async function read(label, uri) {
    try {
      const res = await client.readResource({ uri }, opts);
      const n = (res.contents ?? []).reduce((sum, c) => sum + (c.text?.length ?? c.blob?.length ?? 0), 0);
      check(label, n > 0, `${uri}: ${n} characters`);
    } catch (e) {
      check(label, false, `${uri}: ${errMessage(e)}`);
    }
  }
  for (const r of resources) await read(`read ${r.uri}`, r.uri);
  for (const t of templates) {
    const uri = TEMPLATES[t.name];
    if (!uri) check(`read template ${t.name}`, false, `no URI in TEMPLATES of client2.mjs for ${t.uriTemplate}`);
    else await read(`read template ${t.name}`, uri);
  }

  // Prompts.
  for (const p of prompts) {
    const args = PROMPTS[p.name];
    if (!args) {
      check(`get prompt ${p.name}`, false, 'no arguments in PROMPTS of client2.mjs');
      continue;
    }
    try {
      const res = await client.getPrompt({ name: p.name, arguments: args }, opts);
      check(`get prompt ${p.name}`, (res.messages ?? []).length > 0, `${res.messages?.length ?? 0} messages`);
    } catch (e) {
      check(`get prompt ${p.name}`, false, errMessage(e));
    }
  }

  // Completions of every argument.
  const refs = [
    ...templates.map((t) => ({
      name: t.name,
      ref: { type: 'ref/resource', uri: t.uriTemplate },
      args: [...t.uriTemplate.matchAll(/\{[+#./;?&]?([A-Za-z0-9_]+)\}/g)].map((m) => m[1]),
    })),
    ...prompts.map((p) => ({ name: p.name, ref: { type: 'ref/prompt', name: p.name }, args: (p.arguments ?? []).map((a) => a.name) })),
  ];
  if (!caps.completions) check('completion/complete', false, 'no completions capability: langspec offers completions');
  for (const { name, ref, args } of caps.completions ? refs : []) {
    for (const arg of args) {
      const label = `complete ${name}.${arg}`;
      const entry = COMPLETIONS[`${name}.${arg}`] ?? COMPLETIONS[arg];
      if (!entry) {
        check(label, false, 'no entry in COMPLETIONS of client2.mjs');
        continue;
      }
      const [value, want] = entry;
      const context = { arguments: Object.fromEntries(Object.entries(COMPLETION_CONTEXT).filter(([k]) => k !== arg)) };
      try {
        const res = await client.complete({ ref, argument: { name: arg, value }, context }, opts);
        const values = res.completion?.values;
        const ok = Array.isArray(values) && (want === '' || values.includes(want));
        check(label, ok, `${JSON.stringify(value)} → ${JSON.stringify(values?.slice(0, 5))}${want ? ` (want ${want})` : ''}`);
      } catch (e) {
        check(label, false, errMessage(e));
      }
    }
  }

  // What a client may get wrong is answered in JSON-RPC, in words.
  // Over HTTP in the modern era an unknown method is answered 404 with the
  // JSON-RPC error in the body, as protocol 2026-07-28 has it (SEP-2575);
  // this client reads only a 400's body as JSON-RPC and reports the 404 as
  // an HTTP error holding that body, which is taken as the answer here.
  const httpJSONRPC = (e) => kind === 'http' && era === 'modern' && e?.data?.status === 404 && e.message.includes('"jsonrpc":"2.0"');
  async function expectError(label, send, code, mustSay) {
    try {
      const res = await send();
      check(label, false, `answered ${JSON.stringify(res).slice(0, 300)}; want error ${code}`);
    } catch (e) {
      const coded = (e instanceof ProtocolError && e.code === code) || (httpJSONRPC(e) && e.message.includes(`"code":${code}`));
      const ok = coded && mustSay.every((s) => e.message.includes(s));
      check(label, ok, errMessage(e) + (ok ? '' : `; want code ${code} naming ${mustSay.join(', ')}`));
    }
  }
  await expectError('unknown method', () => client.request({ method: 'langspec/no-such-method', params: {} }, anySchema, opts), -32601, ['langspec/no-such-method']);
  await expectError('tools/list with a bad cursor', () => client.listTools({ cursor: 'not-a-cursor' }, opts), -32602, ['cursor', 'not-a-cursor']);
  if (era === 'legacy') {
    await expectError('logging/setLevel loud', () => client.setLoggingLevel('loud', opts), -32602, ['loud', ...LEVELS]);
  }

  await cancelLongCall(client, check, listed);
  return finish(summary, client);
}

// cancelLongCall aborts a manual_find that re-indexes a manual of many
// files, at its first progress notification, and checks that the call ends
// at once and the server answers the next one.
async function cancelLongCall(client, check, listed) {
  const label = 'cancel a long call';
  if (!listed.has('manual_find')) {
    // Categories mode: manual_find runs in langspec's own server, whose
    // progress does not reach this client; flat mode checks cancellation.
    return check(label, listed.has('call-category-tool'), listed.has('call-category-tool') ? 'not here: categories mode (the flat run cancels)' : 'manual_find is not listed');
  }
  const dir = process.env.LANGSPEC_VALIDATORS_LONG_MANUAL;
  if (!dir) return check(label, false, 'LANGSPEC_VALIDATORS_LONG_MANUAL is not set (the Go test sets it)');
  const manualID = basename(dir);
  const args = { manual_id: manualID, query: 'validators long manual' };
  try {
    // Once indexed (the server's start-up refresh may still be at it),
    // every file changes, so the next call re-indexes them all.
    await client.callTool({ name: 'manual_find', arguments: args }, { timeout: 120_000 });
    for (const f of readdirSync(dir)) appendFileSync(join(dir, f), `\nchanged for the cancel check ${Date.now()}\n`);
  } catch (e) {
    return check(label, false, `preparing: ${errMessage(e)}`);
  }
  const abort = new AbortController();
  let progressed = 0;
  const started = Date.now();
  const call = client.callTool(
    { name: 'manual_find', arguments: args },
    {
      signal: abort.signal,
      timeout: REQUEST_TIMEOUT_MS,
      onprogress: (p) => {
        progressed++;
        if (progressed === 1) abort.abort('the validators cancel the call');
      },
    },
  );
  let ended;
  try {
    const res = await call;
    ended = `answered after ${Date.now() - started} ms (${progressed} progress notifications): ${textOf(res).slice(0, 200)}`;
    return check(label, false, `not cancelled: ${ended}`);
  } catch (e) {
    ended = `${errMessage(e)} after ${Date.now() - started} ms`;
  }
  if (progressed === 0) return check(label, false, `no progress notification before the call ended: ${ended}`);
  try {
    const next = await client.callTool({ name: 'list_languages', arguments: {} }, { timeout: REQUEST_TIMEOUT_MS });
    check(label, !next.isError, `aborted at the first progress notification: ${ended}; next call ${next.isError ? 'failed: ' + textOf(next) : 'answered'}`);
  } catch (e) {
    check(label, false, `aborted (${ended}) but the next call threw: ${errMessage(e)}`);
  }
}

async function finish(summary, client) {
  try {
    await client.close();
  } catch (e) {
    summary.checks.push({ check: 'close', ok: false, detail: errMessage(e) });
  }
  summary.failures = summary.checks.filter((c) => !c.ok).length;
  summary.ok = summary.failures === 0;
  process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  process.exitCode = summary.ok ? 0 : 1;
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ ok: false, failures: 1, checks: [{ check: 'client', ok: false, detail: errMessage(e) }] }) + '\n');
  process.exitCode = 1;
});
