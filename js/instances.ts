// LangChain.js messages held as live instances: the marker `compact` makes is
// a serialised HumanMessage (`{ lc: 1, type: "constructor", id, kwargs }`);
// for a history of instances it is built through the constructor of a
// HumanMessage found in that history, so it is the caller's own class.

interface SerialisedMessage {
  lc: 1;
  type: "constructor";
  id: string[];
  kwargs: object;
}

function isSerialised(value: unknown): value is SerialisedMessage {
  const message = value as SerialisedMessage | null;
  return (
    typeof message === "object" &&
    message !== null &&
    message.lc === 1 &&
    message.type === "constructor" &&
    Array.isArray(message.id) &&
    typeof message.kwargs === "object"
  );
}

/** The newest live human message of a history: an instance keeping `lc_kwargs`. */
function humanInstance(history: readonly unknown[]): object | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i] as { type?: unknown } | null;
    if (typeof message === "object" && message !== null && Object.hasOwn(message, "lc_kwargs") && message.type === "human") {
      return message;
    }
  }
  return undefined;
}

/**
 * The marker as an instance of the history's own HumanMessage class when the
 * history holds one; otherwise as it is (serialised, which LangChain's chat
 * models and `load` take as a HumanMessage).
 */
export function markerOfHistoryClass<M>(marker: M, history: readonly M[]): M {
  if (!isSerialised(marker)) return marker;
  const human = humanInstance(history);
  if (human === undefined) return marker;
  const Class = Object.getPrototypeOf(human).constructor as new (fields: object) => M;
  return new Class(marker.kwargs);
}
