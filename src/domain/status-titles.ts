// Reason phrases used as problem titles: RFC 9110's name where node's table keeps an older one,
// node's table for every other status, so no answer is titled just "Error".
import { STATUS_CODES } from 'node:http';

const RFC_9110_NAMES: Record<number, string> = {
  413: 'Content Too Large',
};

export function titleFor(status: number): string {
  return RFC_9110_NAMES[status] ?? STATUS_CODES[status] ?? 'Error';
}
