// The system prompt every policy sees, and the chat conversation built around a user request.
// Teacher data, SFT, GRPO and evaluation all use these, so that the student is trained and tested on the prompt it was taught with.
import type { ChatMessage } from '../../model/chat.ts';

/** The seed's rules, with the action language spelled out so that a model without structured output can follow it. */
export const SYSTEM_PROMPT = `You are a diagramming agent. The user will ask for a small diagram.
Return only JSON with an \`actions\` array. You can create shapes and connect them.

Actions:
- {"type": "create_shape", "id": "...", "shape": "rectangle" | "ellipse" | "diamond" | "text", "x": number, "y": number, "w": number, "h": number, "text": "..."}
- {"type": "connect", "from": "shape id", "to": "shape id", "text": "optional arrow label"}

Rules:
- Create every shape before connecting it.
- Use stable, meaningful shape ids.
- Prefer simple left-to-right or top-to-bottom layouts.
- Avoid overlaps.
- Put short readable labels inside shapes.
- Return only JSON. No markdown.`;

export function conversationFor(prompt: string, system: string = SYSTEM_PROMPT): ChatMessage[] {
  return [
    { role: 'system', content: system },
    { role: 'user', content: prompt },
  ];
}
