package dev.zaelimiter.spring;

import dev.zaelimiter.Lease;

import java.util.Objects;
import java.util.Optional;

/**
 * The leases of the {@link RateLimited} calls running on the current thread, so that a method can correct what it
 * consumed once it knows the real cost:
 *
 * <pre>{@code
 * @RateLimited(resource = "gpt-4", entity = "#apiKey", consume = @Consume(limit = "tpm", amount = "#maxTokens"))
 * public Completion complete(String apiKey, String prompt, int maxTokens) {
 *     Completion completion = model.complete(prompt, maxTokens);
 *     RateLimitContext.currentLease().ifPresent(lease -> lease.adjust("tpm", completion.tokens() - maxTokens));
 *     return completion;
 * }
 * }</pre>
 *
 * <p>{@link #currentLease()} returns an empty {@code Optional} outside a {@code @RateLimited} call rather than
 * throwing, so that the same code also runs when the aspect is switched off ({@code zae.limiter.aop.enabled=false})
 * or the method is called directly in a unit test; use {@code currentLease().orElseThrow()} when a lease is required.
 * Calls nest: a rate-limited method calling another sees the inner call's lease until the inner call returns. When a
 * method has several {@code @RateLimited} annotations, the innermost lease is the one acquired last (the last
 * annotation); {@link #currentLease(String)} picks one by resource.
 *
 * <p>The context is bound to the thread that invokes the method and is visible only while the method's own code runs
 * on that thread. Code that the method hands to another thread (the body of a {@code CompletableFuture}, a task of an
 * executor) does not see it: read the lease before handing the work off and pass it along. The lease itself is
 * thread-safe.
 */
public final class RateLimitContext {

    private static final ThreadLocal<Frame> CURRENT = new ThreadLocal<>();

    private RateLimitContext() {
    }

    /** The lease of the innermost {@link RateLimited} call running on this thread, or empty outside one. */
    public static Optional<Lease> currentLease() {
        Frame frame = CURRENT.get();
        return frame == null ? Optional.empty() : Optional.of(frame.lease);
    }

    /**
     * The lease of the innermost {@link RateLimited} call on {@code resource} running on this thread, or empty when
     * none is.
     */
    public static Optional<Lease> currentLease(String resource) {
        for (Frame frame = CURRENT.get(); frame != null; frame = frame.parent) {
            if (frame.resource.equals(resource)) {
                return Optional.of(frame.lease);
            }
        }
        return Optional.empty();
    }

    /**
     * Makes {@code lease} (acquired on {@code resource}) the current lease of this thread until the returned scope
     * is closed, on the same thread. The {@code @RateLimited} support calls this around the method; application code
     * that acquires a lease itself may use it so that the code it calls finds the lease in the same way:
     *
     * <pre>{@code
     * try (Lease lease = limiter.acquire(userId, "chat", Map.of("rpm", 1L));
     *      RateLimitContext.Scope scope = RateLimitContext.open("chat", lease)) {
     *     ...
     * }
     * }</pre>
     */
    public static Scope open(String resource, Lease lease) {
        Frame frame = new Frame(Objects.requireNonNull(resource, "resource"), Objects.requireNonNull(lease, "lease"),
                CURRENT.get(), Thread.currentThread());
        CURRENT.set(frame);
        return frame;
    }

    /** An {@link #open} call; closing it makes current again the lease that was current when it was opened. */
    public interface Scope extends AutoCloseable {

        /**
         * Restores the lease that was current when this scope was opened, discarding scopes opened inside it and left
         * open. Closing a scope again does nothing.
         *
         * @throws IllegalStateException when called on another thread than the one that opened the scope
         */
        @Override
        void close();
    }

    private static final class Frame implements Scope {

        final String resource;
        final Lease lease;
        final Frame parent;
        private final Thread owner;
        private boolean closed;

        Frame(String resource, Lease lease, Frame parent, Thread owner) {
            this.resource = resource;
            this.lease = lease;
            this.parent = parent;
            this.owner = owner;
        }

        @Override
        public void close() {
            if (Thread.currentThread() != owner) {
                throw new IllegalStateException("the RateLimitContext scope of '" + resource + "' was opened on "
                        + owner.getName() + " and cannot be closed on " + Thread.currentThread().getName());
            }
            if (closed) {
                return;
            }
            for (Frame inner = CURRENT.get(); inner != null && inner != this; inner = inner.parent) {
                inner.closed = true;
            }
            closed = true;
            // set, not remove: the thread keeps its map entry (holding nothing), so the next open allocates none
            CURRENT.set(parent);
        }
    }
}
