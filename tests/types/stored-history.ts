// readStoredHistory's types: the messages come back unchecked (unknown[]),
// to be handed to the history functions, and the error's fields are typed.
import { describeMessages, readStoredHistory, StoredHistoryError, type StoredHistory, type Message } from "kram-compaction";

const read: StoredHistory = readStoredHistory('{"role":"user","content":"hi"}\n');
const shape: "JSON array" | "JSONL" = read.shape;
const line: number | undefined = read.lineOf(0);
describeMessages(read.messages as Message[]);
// @ts-expect-error the messages are not checked yet: unknown, not Message
const first: Message = read.messages[0];
// @ts-expect-error the text is a string
readStoredHistory(new Uint8Array());

try {
  readStoredHistory("[1,");
} catch (error) {
  if (error instanceof StoredHistoryError) {
    const where: [number | undefined, number | undefined, string] = [error.line, error.column, error.reason];
    const syntax: SyntaxError = error;
    void [where, syntax];
  }
}
void [shape, line, first];
