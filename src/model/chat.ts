// The chat template: TRL-style `messages` to token ids, with the mask of the tokens SFT trains on.
// Layout: <|role|>content<|end|> per message, nothing between; a generation prompt ends with <|assistant|>.
// System messages are left out. The student is trained from scratch on one kind of request, so the instructions a system
// prompt carries are nothing it can read, and the same 190 tokens in every row would cost 40% of its training compute.
import type { Tokenizer } from './tokenizer.ts';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The request a conversation asks about: its last user message. */
export function userPrompt(conversation: ChatMessage[]): string {
  for (let i = conversation.length - 1; i >= 0; i--) {
    if (conversation[i].role === 'user') return conversation[i].content;
  }
  throw new Error('conversation has no user message');
}

/** The same template in Jinja, for tokenizer_config.json: transformers' apply_chat_template renders the same string, and
 *  `{% generation %}` marks the assistant tokens for TRL's assistant_only_loss. */
export const CHAT_TEMPLATE =
  "{% for message in messages %}" +
  "{% if message['role'] == 'system' %}" +
  "{% elif message['role'] == 'assistant' %}" +
  "{{ '<|assistant|>' }}{% generation %}{{ message['content'] + '<|end|>' }}{% endgeneration %}" +
  "{% else %}{{ '<|' + message['role'] + '|>' + message['content'] + '<|end|>' }}{% endif %}" +
  "{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}";

const ROLE_TOKEN = { system: '<|system|>', user: '<|user|>', assistant: '<|assistant|>' } as const;

export interface RenderedChat {
  ids: number[];
  /** 1 where the token is an assistant's (its content and its closing <|end|>): the tokens the loss is taken on. */
  mask: number[];
}

/** The messages the template renders: all but system messages. */
export function templateMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.filter((m) => m.role !== 'system');
}

/** The conversation as the rendered template's string (what transformers' apply_chat_template returns). */
export function chatText(messages: ChatMessage[], addGenerationPrompt = false): string {
  const body = templateMessages(messages)
    .map((m) => `${ROLE_TOKEN[m.role]}${m.content}<|end|>`)
    .join('');
  return addGenerationPrompt ? body + ROLE_TOKEN.assistant : body;
}

export function renderChat(tok: Tokenizer, messages: ChatMessage[]): RenderedChat {
  const ids: number[] = [];
  const mask: number[] = [];
  for (const m of messages) {
    if (!ROLE_TOKEN[m.role]) throw new Error(`unknown chat role ${JSON.stringify(m.role)}: expected system, user or assistant`);
  }
  for (const m of templateMessages(messages)) {
    const roleToken = ROLE_TOKEN[m.role];
    const trained = m.role === 'assistant' ? 1 : 0;
    ids.push(tok.specialIds[roleToken]);
    mask.push(0);
    for (const id of tok.encode(m.content)) {
      ids.push(id);
      mask.push(trained);
    }
    ids.push(tok.endId);
    mask.push(trained);
  }
  return { ids, mask };
}

/** Ids of the conversation so far followed by <|assistant|>: what the model continues. */
export function renderGenerationPrompt(tok: Tokenizer, messages: ChatMessage[]): number[] {
  const { ids } = renderChat(tok, messages);
  ids.push(tok.specialIds['<|assistant|>']);
  return ids;
}
