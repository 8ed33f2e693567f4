// Local HTTP stand-ins for the language-model vendors, speaking their wire formats closely enough
// for the vendors' own SDKs: Anthropic Messages (POST /v1/messages, x-api-key, SSE events
// message_start ... message_stop, errors {type:"error", error:{type, message}}, 529 overloaded)
// and OpenAI Chat Completions (POST /v1/chat/completions, Bearer key, SSE `data:` chunks ending
// in [DONE], usage with stream_options.include_usage, errors {error:{message, type, code}}), plus
// GET /v1/models on both. What each call does is programmable (answer, 429 with Retry-After,
// overload, 500, hang, cut connection), every request is logged (for "no PII reached the
// vendor"), and nothing here touches the internet.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  'ok' | 'rate_limited' | 'overloaded' | 'error' | 'hang' | 'drop' | 'unauthorized' | 'context_length' | 'stream_cut';

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface VendorStandIn {
  readonly url: string;
  /** Every request received, in order (bodies as sent). */
  readonly seen: SeenRequest[];
  /** What calls do when `queue` is empty. */
  behaviour: Behaviour;
  /** One behaviour per coming completion call, used first-in first-out before `behaviour`. */
  queue: Behaviour[];
  /** The answer text for a completion; default: "Echo: " + the last user message. */
  reply: (lastUserMessage: string, body: any) => string;
  /** The API key the stand-in accepts (any key when undefined). */
  acceptKey?: string;
  /** Completions seen (not probes). */
  completions(): SeenRequest[];
  close(): Promise<void>;
}

type Flavour = 'anthropic' | 'openai';

function errorBody(flavour: Flavour, status: number, type: string, message: string): string {
  return flavour === 'anthropic'
    ? JSON.stringify({ type: 'error', error: { type, message } })
    : JSON.stringify({ error: { message, type, param: null, code: type } });
}

function lastUser(flavour: Flavour, body: any): string {
  const messages: { role: string; content: unknown }[] = body?.messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[]).map((b) => b.text ?? '').join('');
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

export async function startVendor(flavour: Flavour): Promise<VendorStandIn> {
  const seen: SeenRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const state: Omit<VendorStandIn, 'url' | 'seen' | 'close' | 'completions'> = {
    behaviour: 'ok',
    queue: [],
    reply: (last) => `Echo: ${last}`,
    acceptKey: undefined,
  };
  const completionPath = flavour === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0]!;
      seen.push({ method: req.method ?? '', path, headers: req.headers, body });
      // Anthropic's API takes x-api-key; its SDK (1.x) sends the key as a Bearer token. Both count.
      const key =
        (flavour === 'anthropic' ? req.headers['x-api-key'] : undefined) ??
        (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const send = (status: number, json: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(json);
      };
      if (state.acceptKey !== undefined && key !== state.acceptKey)
        return send(
          401,
          errorBody(
            flavour,
            401,
            flavour === 'anthropic' ? 'authentication_error' : 'invalid_api_key',
            'invalid x-api-key',
          ),
        );
      if (req.method === 'GET' && path === '/v1/models') {
        if (state.behaviour === 'drop') return req.socket.destroy();
        if (state.behaviour !== 'ok') return send(503, errorBody(flavour, 503, 'overloaded_error', 'down'));
        return send(
          200,
          flavour === 'anthropic'
            ? JSON.stringify({
                data: [
                  {
                    type: 'model',
                    id: 'claude-3-5-sonnet-20241022',
                    display_name: 'Claude',
                    created_at: '2024-10-22T00:00:00Z',
                  },
                ],
                has_more: false,
                first_id: null,
                last_id: null,
              })
            : JSON.stringify({
                object: 'list',
                data: [{ id: 'gpt-4-turbo', object: 'model', created: 0, owned_by: 'openai' }],
              }),
        );
      }
      if (req.method !== 'POST' || path !== completionPath)
        return send(404, errorBody(flavour, 404, 'not_found_error', 'not found'));
      const behaviour = state.queue.shift() ?? state.behaviour;
      switch (behaviour) {
        case 'rate_limited':
          return send(
            429,
            errorBody(
              flavour,
              429,
              flavour === 'anthropic' ? 'rate_limit_error' : 'rate_limit_exceeded',
              'rate limited',
            ),
            { 'retry-after': '7' },
          );
        case 'overloaded':
          return flavour === 'anthropic'
            ? send(529, errorBody(flavour, 529, 'overloaded_error', 'Overloaded'))
            : send(503, errorBody(flavour, 503, 'server_error', 'The engine is currently overloaded'));
        case 'error':
          return send(
            500,
            errorBody(flavour, 500, flavour === 'anthropic' ? 'api_error' : 'server_error', 'internal error'),
          );
        case 'unauthorized':
          return send(401, errorBody(flavour, 401, 'authentication_error', 'invalid key'));
        case 'context_length':
          return send(
            400,
            errorBody(
              flavour,
              400,
              'invalid_request_error',
              flavour === 'anthropic'
                ? 'prompt is too long: 210000 tokens > 200000 maximum'
                : "This model's maximum context length is 8192 tokens",
            ),
          );
        case 'hang':
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return undefined;
        case 'drop':
          return req.socket.destroy();
        default:
          break;
      }
      let parsed: any;
      try {
        parsed = JSON.parse(body);
      } catch {
        return send(400, errorBody(flavour, 400, 'invalid_request_error', 'bad json'));
      }
      const text = state.reply(lastUser(flavour, parsed), parsed);
      const inputTokens = tokens(body);
      const outputTokens = tokens(text);
      if (parsed.stream)
        return streamAnswer(flavour, res, parsed.model, text, inputTokens, outputTokens, behaviour === 'stream_cut');
      return send(
        200,
        flavour === 'anthropic'
          ? JSON.stringify({
              id: 'msg_standin',
              type: 'message',
              role: 'assistant',
              model: parsed.model,
              content: [{ type: 'text', text }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: inputTokens, output_tokens: outputTokens },
            })
          : JSON.stringify({
              id: 'chatcmpl-standin',
              object: 'chat.completion',
              created: 0,
              model: parsed.model,
              choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
              usage: {
                prompt_tokens: inputTokens,
                completion_tokens: outputTokens,
                total_tokens: inputTokens + outputTokens,
              },
            }),
      );
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = flavour === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`;

  return Object.assign(state, {
    url,
    seen,
    completions: () => seen.filter((s) => s.path === completionPath),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as VendorStandIn;
}

/** `cut`: the connection is destroyed halfway through the pieces (a vendor failing mid-answer). */
function streamAnswer(
  flavour: Flavour,
  res: http.ServerResponse,
  model: string,
  text: string,
  inputTokens: number,
  outputTokens: number,
  cut = false,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let pieces: string[] = text.match(/.{1,5}/gs) ?? [];
  if (cut) pieces = pieces.slice(0, Math.ceil(pieces.length / 2));
  // Half the answer, then the connection closes (a FIN after the data, so the client reads what
  // was sent, then an unterminated chunked body): no closing events, no usage.
  const cutNow = () => {
    res.socket?.end();
    return true;
  };
  if (flavour === 'anthropic') {
    const event = (type: string, data: unknown) => res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_standin',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    });
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (const piece of pieces)
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: piece },
      });
    if (cut && cutNow()) return;
    event('content_block_stop', { type: 'content_block_stop', index: 0 });
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: outputTokens },
    });
    event('message_stop', { type: 'message_stop' });
  } else {
    const chunk = (delta: unknown, finish: string | null, usage: unknown = null) =>
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-standin', object: 'chat.completion.chunk', created: 0, model, choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finish }], usage })}\n\n`,
      );
    chunk({ role: 'assistant', content: '' }, null);
    for (const piece of pieces) chunk({ content: piece }, null);
    if (cut && cutNow()) return;
    chunk({}, 'stop');
    chunk(null, null, {
      prompt_tokens: inputTokens,
      completion_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
    });
    res.write('data: [DONE]\n\n');
  }
  res.end();
}
