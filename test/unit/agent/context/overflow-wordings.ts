/**
 * How each server says "the prompt does not fit", quoted from the source or from reports of it, with
 * the HTTP reply it comes in. Used by the figure parser's table test and the loop's recovery test.
 */
export interface Wording {
  server: string
  /** Where the text comes from. */
  source: string
  status: number
  body: unknown
  figures: { limit?: number; requested?: number }
}

export const OVERFLOW_WORDINGS: Wording[] = [
  {
    server: 'OpenAI',
    source: 'platform.openai.com error codes: code context_length_exceeded',
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
    figures: { limit: 128_000, requested: 130_532 },
  },
  {
    server: 'vLLM',
    source: 'vllm/entrypoints/openai serving (ErrorResponse, "However, your request has N input tokens")',
    status: 400,
    body: {
      object: 'error',
      message:
        "This model's maximum context length is 4096 tokens. However, your request has 5120 input tokens. Please reduce the length of the input messages.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
    figures: { limit: 4096, requested: 5120 },
  },
  {
    server: 'vLLM 0.10',
    source: 'vllm 0.10 serving_engine ("you requested N tokens (… in the messages, … in the completion)")',
    status: 400,
    body: {
      object: 'error',
      message:
        "This model's maximum context length is 8192 tokens. However, you requested 9100 tokens (8100 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
    figures: { limit: 8192, requested: 9100 },
  },
  {
    server: 'llama.cpp',
    source: 'ggml-org/llama.cpp tools/server (exceed_context_size_error with n_prompt_tokens and n_ctx)',
    status: 400,
    body: {
      error: {
        code: 400,
        message:
          'request (41533 tokens) exceeds the available context size (32768 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 41_533,
        n_ctx: 32_768,
      },
    },
    figures: { limit: 32_768, requested: 41_533 },
  },
  {
    server: 'Ollama',
    source:
      'ollama/ollama: "the input length exceeds the context length" (truncate: false; ollama/ollama#17944)',
    status: 400,
    body: {
      error: {
        message: 'the input length exceeds the context length',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    },
    figures: {},
  },
  {
    server: 'LM Studio',
    source: 'lmstudio-ai/lmstudio-bug-tracker#237 and #546 ("context length of only N tokens")',
    status: 400,
    body: {
      error:
        'Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input',
    },
    figures: { limit: 4096, requested: 15_857 },
  },
  {
    server: 'LM Studio 0.4',
    source: 'anomalyco/opencode#11141 ("Cannot truncate prompt with n_keep (N) >= n_ctx (M)")',
    status: 400,
    body: { error: 'Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)' },
    figures: { limit: 7424, requested: 15_028 },
  },
]

/** The text a wording's body carries (what the provider error message quotes). */
export function wordingText(w: Wording): string {
  const body = w.body as { error?: unknown; message?: unknown }
  if (typeof body.error === 'string') return body.error
  if (typeof body.message === 'string') return body.message
  return String((body.error as { message?: unknown }).message)
}
