package io.phoenixtxn.tm.net;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A plain socket speaking (or abusing) the TM protocol byte by byte, for tests of misbehaving clients. */
final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    RawClient(InetSocketAddress server, int readTimeoutMs) throws IOException {
        socket = new Socket();
        socket.connect(server, 2_000);
        socket.setSoTimeout(readTimeoutMs);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    RawClient(InetSocketAddress server) throws IOException {
        this(server, 5_000);
    }

    /** A received frame. */
    record Frame(int type, long requestId, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        boolean is(MessageType messageType) {
            return type == (messageType.code() & 0xFF);
        }
    }

    void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void sendFrame(int type, long requestId, byte[] payload) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(4 + 9 + payload.length);
        frame.putInt(9 + payload.length).put((byte) type).putLong(requestId).put(payload);
        sendBytes(frame.array());
    }

    void sendFrame(MessageType type, long requestId, byte[] payload) throws IOException {
        sendFrame(type.code(), requestId, payload);
    }

    /** Handshakes with the given magic and version and returns the server's answer. */
    Frame hello(int magic, int version) throws IOException {
        sendFrame(MessageType.HELLO, 1, ByteBuffer.allocate(8).putInt(magic).putInt(version).array());
        return readFrame();
    }

    Frame hello() throws IOException {
        Frame answer = hello(Protocol.MAGIC, Protocol.VERSION);
        if (answer == null || !answer.is(MessageType.HELLO_OK)) {
            throw new IOException("handshake failed: " + (answer == null ? "closed" : answer.text()));
        }
        return answer;
    }

    /** The next frame, or null if the server closed the connection. */
    Frame readFrame() throws IOException {
        int length;
        try {
            length = in.readInt();
        } catch (EOFException e) {
            return null;
        } catch (SocketException e) {
            // A reset after the server closed with our unread bytes in its buffer: closed all the same.
            return null;
        }
        int type = in.readUnsignedByte();
        long id = in.readLong();
        byte[] payload = new byte[length - 9];
        in.readFully(payload);
        return new Frame(type, id, payload);
    }

    /** Reads until the server closes; returns what it said before (a read timeout fails the test). */
    List<Frame> readUntilClosed() throws IOException {
        List<Frame> frames = new ArrayList<>();
        for (Frame frame = readFrame(); frame != null; frame = readFrame()) {
            frames.add(frame);
        }
        return frames;
    }

    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
