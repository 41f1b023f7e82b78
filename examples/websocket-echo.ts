// A minimal WebSocket echo (RFC 6455) for the example HTTP worker, so it needs no packages:
// the handshake, then every text or binary message is sent back; ping gets pong, close closes.
// Fragmented messages are echoed frame by frame.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export function acceptWebSocket(req: IncomingMessage, socket: Duplex): void {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string') return void socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`);
  let buffer = Buffer.alloc(0);
  socket.on('data', (data: Buffer) => {
    buffer = Buffer.concat([buffer, data]);
    for (;;) {
      const frame = readFrame(buffer);
      if (!frame) return;
      buffer = buffer.subarray(frame.length);
      if (frame.opcode === 0x8) return void socket.end(encode(0x8, frame.payload));
      if (frame.opcode === 0x9) socket.write(encode(0xa, frame.payload));
      else if (frame.opcode <= 0x2) socket.write(encode(frame.opcode, frame.payload, frame.fin));
    }
  });
  socket.on('error', () => socket.destroy());
}

interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
  /** Bytes the frame took in the buffer. */
  length: number;
}

function readFrame(buf: Buffer): Frame | undefined {
  if (buf.length < 2) return undefined;
  const fin = (buf[0]! & 0x80) !== 0;
  const opcode = buf[0]! & 0x0f;
  const masked = (buf[1]! & 0x80) !== 0;
  let size = buf[1]! & 0x7f;
  let offset = 2;
  if (size === 126) {
    if (buf.length < 4) return undefined;
    size = buf.readUInt16BE(2);
    offset = 4;
  } else if (size === 127) {
    if (buf.length < 10) return undefined;
    size = Number(buf.readBigUInt64BE(2));
    offset = 10;
  }
  const maskOffset = offset;
  if (masked) offset += 4;
  if (buf.length < offset + size) return undefined;
  const payload = Buffer.from(buf.subarray(offset, offset + size));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= buf[maskOffset + (i % 4)]!;
  return { fin, opcode, payload, length: offset + size };
}

/** A server frame: never masked. */
function encode(opcode: number, payload: Buffer, fin = true): Buffer {
  const first = (fin ? 0x80 : 0) | opcode;
  if (payload.length < 126) return Buffer.concat([Buffer.from([first, payload.length]), payload]);
  if (payload.length < 65536) {
    const header = Buffer.from([first, 126, 0, 0]);
    header.writeUInt16BE(payload.length, 2);
    return Buffer.concat([header, payload]);
  }
  const header = Buffer.alloc(10);
  header[0] = first;
  header[1] = 127;
  header.writeBigUInt64BE(BigInt(payload.length), 2);
  return Buffer.concat([header, payload]);
}
