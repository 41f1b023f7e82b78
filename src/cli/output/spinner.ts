// A spinner on stderr while the CLI waits, only when stderr is a terminal: stdout stays clean for
// pipes, and logs of scripts stay free of carriage returns.
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Spinner {
  /** Changes the text shown next to the spinner. */
  say(text: string): void;
  stop(): void;
}

export function startSpinner(text: string, stream: NodeJS.WriteStream = process.stderr): Spinner {
  if (!stream.isTTY) return { say() {}, stop() {} };
  let current = text;
  let frame = 0;
  const started = Date.now();
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    stream.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${current} ${seconds}s`);
  };
  draw();
  const timer = setInterval(draw, 80);
  return {
    say(next) {
      current = next;
    },
    stop() {
      clearInterval(timer);
      stream.write('\r\x1b[K');
    },
  };
}

/** Runs `work` with a spinner showing `text`, removing it however the work ends. */
export async function withSpinner<T>(text: string, work: (spinner: Spinner) => Promise<T>): Promise<T> {
  const spinner = startSpinner(text);
  try {
    return await work(spinner);
  } finally {
    spinner.stop();
  }
}
