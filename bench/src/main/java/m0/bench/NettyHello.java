package m0.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The Netty arm of {@code prod-server/bench/figures.sh}: a hello server on Netty 4.2's native
 * epoll transport, one event-loop thread per "worker", answering every path as nginx's bench
 * config does ({@code return 200 "$pid\n"}): the process id and a newline, keep-alive unless the
 * request says close. Written the way Netty's own HTTP hello example is (codec, aggregator,
 * keep-alive handler), so the table compares with Netty as people use it, not a tuned outlier.
 *
 * <p>TRANSPORT {@code io_uring} serves on Netty's io_uring transport instead: ADR 0048 measures
 * with it what io_uring does to the kernel's share of a keep-alive request.
 *
 * <pre>java -cp bench/target/benchmarks.jar m0.bench.NettyHello HOST:PORT [THREADS=1] [TRANSPORT=epoll|io_uring]</pre>
 *
 * Prints {@code listening on HOST:PORT} once bound.
 */
public final class NettyHello {

    private NettyHello() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || !args[0].contains(":")) {
            System.err.println("usage: NettyHello HOST:PORT [THREADS] [epoll|io_uring]");
            System.exit(2);
        }
        String transport = args.length > 2 ? args[2] : "epoll";
        IoHandlerFactory handlers;
        Class<? extends ServerChannel> channel;
        Throwable unavailable;
        switch (transport) {
            case "epoll" -> {
                handlers = EpollIoHandler.newFactory();
                channel = EpollServerSocketChannel.class;
                unavailable = Epoll.unavailabilityCause();
            }
            case "io_uring" -> {
                handlers = IoUringIoHandler.newFactory();
                channel = IoUringServerSocketChannel.class;
                unavailable = IoUring.unavailabilityCause();
            }
            default -> {
                System.err.println("NettyHello: transport is epoll or io_uring, not " + transport);
                System.exit(2);
                return;
            }
        }
        if (unavailable != null) {
            System.err.println("native " + transport + " unavailable: " + unavailable);
            System.exit(1);
        }
        int colon = args[0].lastIndexOf(':');
        InetSocketAddress at = new InetSocketAddress(args[0].substring(0, colon), Integer.parseInt(args[0].substring(colon + 1)));
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        byte[] body = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, handlers);
        try {
            ServerBootstrap b = new ServerBootstrap()
                    .group(group)
                    .channel(channel)
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(),
                                    new HttpObjectAggregator(1 << 16), new Hello(body));
                        }
                    });
            b.bind(at).sync();
            System.out.println("listening on " + args[0] + " (" + transport + ")");
            group.terminationFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }

    private static final class Hello extends SimpleChannelInboundHandler<HttpRequest> {
        private final ByteBuf body;

        Hello(byte[] body) {
            this.body = Unpooled.unreleasableBuffer(Unpooled.directBuffer(body.length).writeBytes(body));
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpRequest req) {
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body.duplicate());
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain").setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
            ctx.writeAndFlush(res); // HttpServerKeepAliveHandler says close and closes when the request asked
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
