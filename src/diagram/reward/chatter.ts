// What a request says to the reader rather than about the diagram: "thx", "lol", "if that's ok", "nothing fancy".
// Prompt-to-spec extraction drops it: as a list item or a clause it would otherwise become a box ("if that makes
// sense" reads as "that -> sense").

// (How often or how long a loop goes round is no box either: "round and round all winter", "up to 3 times".)
const PHRASE = String.raw`(?:round and round|over and over(?: again)?|again and again|up to \w+ times)\b[^,.;!?]*|all (?:day|night|week|winter|summer|year)(?: long| round)?|thx|thanks|thank you|ty|lol|lmao|pls|plz|please|cheers|nothing fancy\b[^,.;!?]*|if (?:that|this)(?:'s|\s+is|\s+makes|\s+works)\b[^,.;!?]*|if it(?:'s|\s+is)\s+(?:ok|okay|fine|alright|possible)|if possible|if you (?:can|could)\b[^,.;!?]*|when you (?:can|get a chance)\b[^,.;!?]*|stuff|u know|you know|that'?s it|and stuff|or something|nothing else|etc\.?|real quick|quickly|tbh|idk|ngl|(?:(?:hey|ok|okay|so|yo)\s+)?quick one|(?:(?:can|could|would)\s+(?:u|you)\s+)?draw (?:that|this|it)(?:\s+(?:pls|plz|please|for me))?|draw (?:pls|plz|please)`;
/** A phrase that is chatter and nothing else. */
export const CHATTER = new RegExp(`^(?:${PHRASE})$`, 'i');
/** Chatter as a clause of a sentence, with the comma before it. */
const CHATTER_CLAUSE = new RegExp(`(?:^|,)\\s*(?:${PHRASE})\\s*(?=[,.;!?]|-\\s|$)`, 'gi');
/** A word of chatter after a name: "the modem lol", "firebase kinda". */
export const CHATTER_TAIL = /(?:\s+(?:lol|lmao|thx|ty|n ty|pls|plz|kinda|sorta|and stuff|or something|etc|real quick|that'?s it|that'?s all|that'?s the whole thing|tho|i think))+$/i;

export const removeChatter = (text: string) => text.replace(CHATTER_CLAUSE, '');
