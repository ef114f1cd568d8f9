/** One turn of a conversation as Anthropic's Messages API and Bedrock's Converse take it. */
export interface Turn<Block> {
  role: 'user' | 'assistant';
  content: Block[];
}

/**
 * Appends `blocks` as a turn of `role`: both APIs want user and assistant turns alternating,
 * so blocks of the same role as the last turn join it (tool results after a user message, a
 * user message after tool results); no blocks, no turn.
 */
export function appendTurn<Block>(turns: Turn<Block>[], role: Turn<Block>['role'], blocks: Block[]): void {
  if (blocks.length === 0) return;
  const last = turns[turns.length - 1];
  if (last && last.role === role) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}
