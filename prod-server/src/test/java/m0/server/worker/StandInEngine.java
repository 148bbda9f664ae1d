package m0.server.worker;

import io.netty.util.ReferenceCounted;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLSession;

/**
 * A stand-in for netty's reference-counted BoringSSL engine: it counts its references as
 * {@code TlsLink.release} sees them, and its release can throw, for the paths that must release
 * an engine or survive one that fails. It never handshakes: no test here reads through it.
 */
final class StandInEngine extends SSLEngine implements ReferenceCounted {

    private int refs = 1;
    private final RuntimeException onRelease;

    StandInEngine(RuntimeException onRelease) {
        this.onRelease = onRelease;
    }

    @Override
    public int refCnt() {
        return refs;
    }

    @Override
    public boolean release() {
        if (onRelease != null) {
            throw onRelease;
        }
        refs--;
        return refs == 0;
    }

    @Override
    public boolean release(int decrement) {
        for (int k = 0; k < decrement; k++) {
            release();
        }
        return refs == 0;
    }

    @Override
    public ReferenceCounted retain() {
        refs++;
        return this;
    }

    @Override
    public ReferenceCounted retain(int increment) {
        refs += increment;
        return this;
    }

    @Override
    public ReferenceCounted touch() {
        return this;
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        return this;
    }

    @Override
    public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) {
        throw new UnsupportedOperationException("a stand-in");
    }

    @Override
    public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length) {
        throw new UnsupportedOperationException("a stand-in");
    }

    @Override
    public Runnable getDelegatedTask() {
        return null;
    }

    @Override
    public void closeInbound() {
    }

    @Override
    public boolean isInboundDone() {
        return false;
    }

    @Override
    public void closeOutbound() {
    }

    @Override
    public boolean isOutboundDone() {
        return false;
    }

    @Override
    public String[] getSupportedCipherSuites() {
        return new String[0];
    }

    @Override
    public String[] getEnabledCipherSuites() {
        return new String[0];
    }

    @Override
    public void setEnabledCipherSuites(String[] suites) {
    }

    @Override
    public String[] getSupportedProtocols() {
        return new String[0];
    }

    @Override
    public String[] getEnabledProtocols() {
        return new String[0];
    }

    @Override
    public void setEnabledProtocols(String[] protocols) {
    }

    @Override
    public SSLSession getSession() {
        return null;
    }

    @Override
    public void beginHandshake() {
    }

    @Override
    public SSLEngineResult.HandshakeStatus getHandshakeStatus() {
        return SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING;
    }

    @Override
    public void setUseClientMode(boolean mode) {
    }

    @Override
    public boolean getUseClientMode() {
        return false;
    }

    @Override
    public void setNeedClientAuth(boolean need) {
    }

    @Override
    public boolean getNeedClientAuth() {
        return false;
    }

    @Override
    public void setWantClientAuth(boolean want) {
    }

    @Override
    public boolean getWantClientAuth() {
        return false;
    }

    @Override
    public void setEnableSessionCreation(boolean flag) {
    }

    @Override
    public boolean getEnableSessionCreation() {
        return true;
    }
}
