// A strict MCP client on the official TypeScript SDK (the version pinned in
// package.json), run against langspec by cmd/langspec/validators_test.go.
//
// Why it exists: clients built on this SDK refuse what the Go SDK lets
// through (listTools() threw a ZodError on a boolean schema `true` in an
// outputSchema), and a Go-only test suite cannot see that. So this client
// does what a real client does and fails on anything it would choke on:
//
//   node client.mjs stdio <command> <args...>
//   node client.mjs http <url> [bearer token]
//
// It lists tools, resources, resource templates and prompts (none may throw),
// compiles every tool's inputSchema and outputSchema with ajv, calls every
// tool annotated readOnlyHint:true once with the arguments of CALLS (calls.mjs),
// and validates each structuredContent with ajv against the outputSchema
// that the listing gave (the SDK validates too; ajv here reports the exact
// mismatch). It prints one JSON summary on stdout and exits 1 on any failure
// (2 on a usage error).
//
// Side effect: when vault_create is listed, it writes one note under
// validators-probe/ in the server's vault first, so that the read-only vault
// tools have a file to read in an empty vault.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import Ajv07 from 'ajv';
import addFormats from 'ajv-formats';
import { CALLS, NOT_CALLED, SETUP } from './calls.mjs';

// Each request is bounded so that a server that never answers fails the
// check instead of hanging the run (the Go test bounds the whole process too).
const REQUEST_TIMEOUT_MS = 30_000;

function usage() {
  console.error('usage: node client.mjs stdio <command> [args...] | node client.mjs http <url> [bearer-token]');
  process.exit(2);
}

function transportFrom(argv) {
  const [kind, ...rest] = argv;
  if (kind === 'stdio' && rest.length >= 1) {
    // The whole environment goes to the server (the SDK would pass only
    // HOME, PATH and a few more): the test sets VAULT_ROOT, MANUALS_ROOT.
    // Its stderr is piped and echoed, so the server cannot outlive us
    // holding our stderr open.
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

// compile returns an ajv validator for a schema of the dialect it declares: MCP's
// default is JSON Schema 2020-12; a schema may still declare draft-07.
function compile(schema) {
  const draft07 = typeof schema?.$schema === 'string' && schema.$schema.includes('draft-07');
  const ajv = draft07 ? new Ajv07({ allErrors: true, strict: false }) : new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

function ajvErrors(validate) {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`).join('; ');
}

function errMessage(e) {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

async function main() {
  const transport = transportFrom(process.argv.slice(2));
  const summary = { transport: process.argv[2], server: null, checks: [], tools: {} };
  const check = (name, ok, detail) => summary.checks.push({ check: name, ok, detail });
  const opts = { timeout: REQUEST_TIMEOUT_MS };

  const client = new Client({ name: 'langspec-validators', version: '1.0.0' }, { capabilities: {} });
  try {
    await client.connect(transport, opts);
    const init = { info: client.getServerVersion(), capabilities: client.getServerCapabilities(), protocol: transport.protocolVersion };
    summary.server = init;
    check('initialize', true, `${init.info?.name} ${init.info?.version}`);
  } catch (e) {
    check('initialize', false, errMessage(e));
    return finish(summary, client);
  }
  const caps = client.getServerCapabilities() ?? {};

  // listAll pages through a list method; every page must parse.
  async function listAll(label, capability, fetch, key) {
    if (!caps[capability]) {
      check(label, true, `not offered (no ${capability} capability)`);
      return [];
    }
    const items = [];
    let cursor;
    try {
      do {
        const page = await fetch(cursor ? { cursor } : undefined);
        items.push(...page[key]);
        cursor = page.nextCursor;
      } while (cursor);
      check(label, true, `${items.length} listed`);
    } catch (e) {
      check(label, false, errMessage(e));
    }
    return items;
  }

  const tools = await listAll('tools/list', 'tools', (p) => client.listTools(p, opts), 'tools');
  await listAll('resources/list', 'resources', (p) => client.listResources(p, opts), 'resources');
  await listAll('resources/templates/list', 'resources', (p) => client.listResourceTemplates(p, opts), 'resourceTemplates');
  await listAll('prompts/list', 'prompts', (p) => client.listPrompts(p, opts), 'prompts');

  // Every schema must compile: a client that cannot compile one refuses
  // the tool (or the whole listing).
  const inputValidators = new Map();
  const outputValidators = new Map();
  for (const tool of tools) {
    for (const [kind, schema, into] of [
      ['inputSchema', tool.inputSchema, inputValidators],
      ['outputSchema', tool.outputSchema, outputValidators],
    ]) {
      if (schema === undefined) continue;
      try {
        into.set(tool.name, compile(schema));
      } catch (e) {
        check(`compile ${tool.name}.${kind}`, false, errMessage(e));
      }
    }
  }

  const listed = new Map(tools.map((t) => [t.name, t]));
  const calls = new Map(CALLS);
  for (const tool of tools) {
    const readOnly = tool.annotations?.readOnlyHint === true;
    if (readOnly && !calls.has(tool.name)) {
      check(`call ${tool.name}`, false, 'read-only tool without an entry in CALLS of calls.mjs: add one good call');
    } else if (!readOnly && calls.has(tool.name)) {
      check(`call ${tool.name}`, false, 'in CALLS but not annotated readOnlyHint:true: the annotation or the table is wrong');
    } else if (!readOnly && !(tool.name in NOT_CALLED)) {
      check(`call ${tool.name}`, false, 'tool that writes, in neither CALLS nor NOT_CALLED of calls.mjs: add it to one');
    }
  }

  const state = {};
  // callOne calls a tool through the SDK (which validates structuredContent
  // itself, as every client on it does), then validates with ajv. When the
  // SDK refuses the result, the raw result is fetched once more so ajv can
  // say exactly what did not match.
  async function callOne(name, args, label) {
    const tool = listed.get(name);
    const inputOK = inputValidators.get(name);
    if (inputOK && !inputOK(args)) {
      check(label, false, `the test's arguments do not match the inputSchema (fix CALLS): ${ajvErrors(inputOK)}`);
      return undefined;
    }
    let result;
    let sdkError;
    try {
      result = await client.callTool({ name, arguments: args }, CallToolResultSchema, opts);
    } catch (e) {
      sdkError = errMessage(e);
      try {
        result = await client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, opts);
      } catch (e2) {
        check(label, false, `${sdkError}; raw request: ${errMessage(e2)}`);
        return undefined;
      }
    }
    const problems = [];
    if (sdkError) problems.push(`SDK refused the result: ${sdkError}`);
    if (result.isError) {
      const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join(' ');
      problems.push(`isError: ${text.slice(0, 500)}`);
    }
    const outputOK = outputValidators.get(name);
    if (tool.outputSchema && !result.isError) {
      if (result.structuredContent === undefined) {
        problems.push('has an outputSchema but returned no structuredContent');
      } else if (outputOK && !outputOK(result.structuredContent)) {
        problems.push(`structuredContent does not match the outputSchema: ${ajvErrors(outputOK)}`);
      }
    }
    const validated = tool.outputSchema ? (outputOK ? 'structuredContent valid' : 'outputSchema did not compile') : 'no outputSchema';
    check(label, problems.length === 0, problems.length ? problems.join(' | ') : validated);
    return result;
  }

  for (const [name, argsOf] of SETUP) {
    if (listed.has(name)) await callOne(name, argsOf(state), `setup ${name}`);
  }
  for (const [name, argsOf] of CALLS) {
    const tool = listed.get(name);
    if (!tool || tool.annotations?.readOnlyHint !== true) continue;
    const result = await callOne(name, argsOf(state), `call ${name}`);
    if (name === 'manual_find') state.traceId = result?.structuredContent?.trace_id;
  }
  summary.tools = { listed: tools.length, readOnly: tools.filter((t) => t.annotations?.readOnlyHint === true).length };
  return finish(summary, client);
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
