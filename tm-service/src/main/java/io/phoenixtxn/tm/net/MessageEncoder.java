package io.phoenixtxn.tm.net;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.util.List;

/** Encodes outgoing {@link Message}s into whole frames; stateless, so one instance serves every channel. */
@ChannelHandler.Sharable
final class MessageEncoder extends MessageToMessageEncoder<Message> {
    static final MessageEncoder INSTANCE = new MessageEncoder();

    private MessageEncoder() {
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Message message, List<Object> out) {
        out.add(WireCodec.encode(message, ctx.alloc()));
    }
}
