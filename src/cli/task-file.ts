// The diagram's task files, as `canvasgym tasks` writes them (or bare prompts for the teacher), read by the commands
// that take --tasks: each row checked against the task schema, every problem a UsageError naming its line.
import { existsSync } from 'node:fs';
import { MAX_ROW_BYTES, readJsonl, readLines, readLinesSync } from '../io/jsonl.ts';
import { Task } from '../diagram/tasks/spec.ts';
import type { TeacherTask } from '../diagram/teacher/teacher.ts';
import { UsageError } from './usage-error.ts';

/** A task row: what `canvasgym tasks` writes, or a bare request (`{"prompt"}`, with an id or without). */
const TaskRow = Task.partial({ id: true, spec: true });

/** A task file is JSONL when its first non-blank line opens a JSON object, else plain text with one prompt a line. */
function isJsonl(path: string): boolean {
  for (const { text } of readLinesSync(path, { maxLineBytes: MAX_ROW_BYTES })) if (text.trim() !== '') return text.trimStart().startsWith('{');
  return true;
}

/** Rows of a task file, each checked against the task schema; a row without an id is named by its line (`line-7`). */
async function readTaskRows(path: string, flag = '--tasks'): Promise<{ lineNumber: number; task: TeacherTask }[]> {
  if (!existsSync(path)) throw new UsageError(`${flag}: no such file ${path}`);
  const rows: { lineNumber: number; task: TeacherTask }[] = [];
  const ids = new Set<string>();
  const add = (lineNumber: number, row: unknown) => {
    const parsed = TaskRow.safeParse(row);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(`${path} line ${lineNumber}: not a task: ${issue.path.join('.') || 'row'}: ${issue.message}`);
    }
    const task = { ...parsed.data, id: parsed.data.id ?? `line-${lineNumber}` };
    if (ids.has(task.id)) throw new UsageError(`${path} line ${lineNumber}: duplicate task id ${JSON.stringify(task.id)}`);
    ids.add(task.id);
    rows.push({ lineNumber, task });
  };
  try {
    if (isJsonl(path)) for await (const { lineNumber, row } of readJsonl(path)) add(lineNumber, row);
    else for await (const { lineNumber, text } of readLines(path, { maxLineBytes: MAX_ROW_BYTES })) if (text.trim() !== '') add(lineNumber, { prompt: text.trim() });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError((err as Error).message);
  }
  if (rows.length === 0) throw new UsageError(`${path} holds no tasks`);
  return rows;
}

/** What the teacher answers: a task file of tasks, of `{id?, prompt}` rows, or of plain prompts one a line (given to
 *  `flag`). */
export async function readTeacherTasks(path: string, flag = '--tasks'): Promise<TeacherTask[]> {
  return (await readTaskRows(path, flag)).map((r) => r.task);
}

/** Tasks with their specs (what `canvasgym tasks` writes), for commands that measure answers against them. */
export async function readTasks(path: string): Promise<Task[]> {
  return (await readTaskRows(path)).map(({ lineNumber, task }) => {
    if (!task.spec) throw new UsageError(`${path} line ${lineNumber}: no spec: this command measures answers against each task's spec (rows from \`canvasgym tasks\` carry one; only the teacher takes bare prompts)`);
    return { ...task, spec: task.spec };
  });
}
