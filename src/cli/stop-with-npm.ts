/**
 * A server started by an npm script stops when npm does. npm does not pass SIGTERM on to its
 * script, so `npm start &` then `kill $!` used to end npm and its shell and leave the server
 * holding the port. Under npm (which sets `npm_lifecycle_event`), the server watches its parent:
 * once it is gone (the process is re-parented), it stops as SIGTERM would stop it, gracefully.
 * Started any other way (`npx lnpr serve &`, a service manager), nothing changes.
 */

/** How often the parent is looked at: a left-behind server is gone within this and the shutdown. */
const PARENT_CHECK_MS = 250;

/** Under an npm script, sends this process SIGTERM once its parent has gone. */
export function stopWithNpm(env: NodeJS.ProcessEnv = process.env): void {
  if (env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, PARENT_CHECK_MS);
  timer.unref();
}
