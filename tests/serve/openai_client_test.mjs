// The OpenAI client library (npm `openai`, pinned in scripts/setup.sh) against `wgpt serve`:
// completions and chat, streaming and not, the model list, the probe extension, and errors raised
// as the library's error classes with the server's status, message and error fields.
//
//   node tests/serve/openai_client_test.mjs URL API_KEY MODEL_NAME
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { default: OpenAI } = await import(
  pathToFileURL(path.join(root, '.deps/npm/openai/index.mjs')).href);
const [url, apiKey, model] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });

let failures = 0;
function check(condition, message) {
  if (!condition) {
    console.log(`FAIL: ${message}`);
    failures += 1;
  }
}

// The error a call throws (none: null).
async function thrown(call) {
  try {
    await call();
    return null;
  } catch (error) {
    return error;
  }
}

const models = await client.models.list();
check(models.data.length === 1 && models.data[0].id === model, `models.list: ${JSON.stringify(models.data)}`);

const request = { model, prompt: 'Hello, my dog', max_tokens: 4, seed: 3 };
const completion = await client.completions.create(request);
check(completion.object === 'text_completion', `completion object: ${completion.object}`);
check(completion.choices[0].finish_reason === 'length', 'completion finish_reason');
check(completion.usage.completion_tokens === 4 && completion.usage.prompt_tokens === 4,
      `completion usage: ${JSON.stringify(completion.usage)}`);

let streamed = '';
let finish = null;
for await (const chunk of await client.completions.create({ ...request, stream: true })) {
  streamed += chunk.choices[0]?.text ?? '';
  finish = chunk.choices[0]?.finish_reason ?? finish;
}
check(streamed === completion.choices[0].text,
      `streamed text ${JSON.stringify(streamed)} differs from ${JSON.stringify(completion.choices[0].text)}`);
check(finish === 'length', `stream's finish_reason: ${finish}`);

const several = await client.completions.create({ ...request, n: 2, logprobs: 2, max_tokens: 2 });
check(several.choices.length === 2 && several.choices[1].index === 1, 'n: 2 gives two choices');
const logprobs = several.choices[0].logprobs;
check(logprobs.tokens.length === 2 && logprobs.token_logprobs.every((p) => p <= 0) &&
      Object.keys(logprobs.top_logprobs[0]).length === 2, `logprobs: ${JSON.stringify(logprobs)}`);

// The probe travels as an extra body field; the client passes it through and back.
const probed = await client.completions.create({ ...request, max_tokens: 1, wgpt: { attention: true, top: 3 } });
const probe = probed.choices[0].wgpt?.tokens?.[0];
check(probe && probe.top.length === 3 && probe.attention.length === 2 && probe.kv_len === 4,
      `probe: ${JSON.stringify(probe)}`);

const messages = [{ role: 'system', content: 'A friendly chat.' }, { role: 'user', content: 'Hi' }];
const chat = await client.chat.completions.create({ model, messages, max_tokens: 3, seed: 1 });
check(chat.object === 'chat.completion' && chat.choices[0].message.role === 'assistant' &&
      typeof chat.choices[0].message.content === 'string', `chat: ${JSON.stringify(chat)}`);
let content = '';
let usage = null;
for await (const chunk of await client.chat.completions.create({
  model, messages, max_tokens: 3, seed: 1, stream: true, stream_options: { include_usage: true } })) {
  content += chunk.choices[0]?.delta?.content ?? '';
  usage = chunk.usage ?? usage;
}
check(content === chat.choices[0].message.content, `streamed chat ${JSON.stringify(content)}`);
check(usage && usage.completion_tokens === chat.usage.completion_tokens, `chat usage ${JSON.stringify(usage)}`);

const tooLong = await thrown(() => client.completions.create({ ...request, max_tokens: 500 }));
check(tooLong instanceof OpenAI.BadRequestError && tooLong.status === 400 &&
      tooLong.code === 'context_length_exceeded' && tooLong.param === 'max_tokens' &&
      tooLong.message.includes("maximum context length is 128 tokens"), `context error: ${tooLong}`);
const unknown = await thrown(() => client.completions.create({ ...request, temprature: 1 }));
check(unknown instanceof OpenAI.BadRequestError && unknown.message.includes('temprature'), `unknown field: ${unknown}`);
const otherModel = await thrown(() => client.completions.create({ ...request, model: 'gpt-4' }));
check(otherModel instanceof OpenAI.NotFoundError && otherModel.code === 'model_not_found', `model: ${otherModel}`);
const badRole = await thrown(() => client.chat.completions.create({
  model, messages: [{ role: 'tool', content: 'x', tool_call_id: 'a' }] }));
check(badRole instanceof OpenAI.BadRequestError, `chat role: ${badRole}`);
const wrongKey = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'not-the-key', maxRetries: 0 });
const denied = await thrown(() => wrongKey.models.list());
check(denied instanceof OpenAI.AuthenticationError && denied.status === 401, `wrong key: ${denied}`);

if (failures) {
  console.log(`${failures} OpenAI client check(s) failed`);
  process.exit(1);
}
console.log('OpenAI client: all checks passed');
