// Giving the browser a turn: an update that continues in a new task lets input and painting
// happen in between (so that several updates never add up to one long task).

/** Resolves in a new task, after the browser has had a chance to handle input and paint. */
export function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve(undefined);
    channel.port2.postMessage(null);
  });
}
