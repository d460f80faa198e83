package dev.zaelimiter.spring;

import dev.zaelimiter.RateLimitExceededException;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Rate-limits calls to a Spring bean's method: before the method runs, the tokens named by {@link #consume()} are
 * acquired for the entity {@link #entity()} on {@link #resource()}. A rejection throws
 * {@link RateLimitExceededException} and the method does not run. When the method returns, the lease is closed (the
 * tokens stay spent); when it throws an exception matching {@link #rollbackOn()}, the lease is rolled back (the
 * tokens are returned) and the exception is rethrown.
 *
 * <pre>{@code
 * @RateLimited(resource = "chat", entity = "#userId", consume = @Consume(limit = "rpm"))
 * public String reply(String userId, String prompt) { ... }
 * }</pre>
 *
 * <p><b>Where it applies.</b> On a method, to that method. On a class, to every public method of the class
 * (inherited ones included; {@code equals}, {@code hashCode}, {@code toString} and {@code Object}'s excluded); a
 * method's own {@code @RateLimited} annotations replace the class's rather than adding to them. On an interface
 * method or an overridden method, the nearest declaration wins. Like every Spring proxy-based annotation it takes
 * effect on calls through the bean's proxy only: a call from one method of the bean to another
 * ({@code this.other()}) is not rate limited.
 *
 * <p><b>Several annotations.</b> The annotation is repeatable. The limits are acquired in declaration order (each
 * its own all-or-nothing call) and the leases end in reverse order. When a later one is rejected, the leases already
 * acquired are rolled back before the rejection is thrown, so a rejected call spends nothing.
 *
 * <p><b>Expressions.</b> {@link #entity()} and {@link Consume#amount()} are SpEL expressions evaluated before the
 * method runs, over: the arguments by name ({@code #userId}, when compiled with {@code -parameters}, which Spring
 * Boot's build plugins do) or by position ({@code #p0}, {@code #a0}); {@code #root}, a
 * {@link RateLimitedExpressionRoot} with the method, target and arguments; and beans ({@code @tenantResolver}).
 * Each expression is parsed once per method and cached; a malformed expression or resource or limit name fails when
 * the bean's proxy is created, at startup. An entity that evaluates to {@code null} or a blank string raises
 * {@link dev.zaelimiter.ValidationException} naming the method and the expression, and the method does not run.
 *
 * <p><b>{@code CompletableFuture}.</b> When the method's declared return type is a {@code CompletionStage} (such as
 * {@code CompletableFuture}), the lease ends when the returned future completes: it is closed on normal completion
 * and rolled back on exceptional completion that matches {@link #rollbackOn()}. When the declared type is exactly
 * {@code CompletableFuture} or {@code CompletionStage}, the caller gets a future that completes after the lease has
 * ended. Acquisition still happens before the method runs, so a rejection is thrown to the caller, not put in a
 * future.
 *
 * <p><b>Waiting.</b> A call is admitted or rejected at once, unless {@link #maxWait()} allows it to wait for
 * capacity: then it waits as long as the limiter computes (failing at once when that is longer than
 * {@code maxWait}), before the method runs.
 *
 * @see Consume
 * @see RateLimitContext
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

    /** The resource the limits apply to (a literal name such as {@code "gpt-4"} or {@code "openai/gpt-4"}). */
    String resource();

    /**
     * A SpEL expression giving the entity id, such as {@code "#userId"}, {@code "#request.apiKey"},
     * {@code "@tenants.current()"} or {@code "'global'"}. A non-string result is turned into a string with
     * {@code String.valueOf}.
     */
    String entity();

    /**
     * What the call consumes, one {@link Consume} per limit; for example
     * {@code {@Consume(limit = "rpm"), @Consume(limit = "tpm", amount = "#maxTokens")}}. Every limit named must be
     * configured for the entity on the resource. An empty array consumes nothing: the call is only checked for a
     * disabled resource, and the lease can still be {@linkplain dev.zaelimiter.Lease#adjust adjusted} from inside
     * the method through {@link RateLimitContext}.
     */
    Consume[] consume();

    /**
     * The exceptions that roll the lease back, giving the tokens back, when the method throws them (or its future
     * completes with them): an exception rolls back when it is an instance of one of these classes. Any other
     * exception closes the lease, keeping the tokens spent, and is rethrown all the same.
     *
     * <p>The default, {@code Throwable.class}, rolls back on every exception: a call that failed costs nothing. An
     * empty array never rolls back: every call that was admitted costs its tokens.
     */
    Class<? extends Throwable>[] rollbackOn() default Throwable.class;

    /**
     * How long the call may wait for capacity before the method runs, as a duration such as {@code "2s"},
     * {@code "500ms"} or {@code "PT1M"}; empty (the default) fails at once. See
     * {@link dev.zaelimiter.AcquireRequest#maxWait}.
     */
    String maxWait() default "";

    /** The priority among calls of this process waiting on the same bucket: higher goes first. */
    int priority() default 0;

    /**
     * Exceptions by which the upstream behind this resource asks for a break: when the method throws one (or its
     * future or publisher fails with one), the resource is {@linkplain dev.zaelimiter.RateLimiter#pause paused} for
     * the exception's {@link UpstreamRetryAfter#retryAfter()}, in every process sharing the store, so that no caller
     * keeps calling the upstream until then. Each class must implement {@link UpstreamRetryAfter} (checked at
     * startup). The lease ends as {@link #rollbackOn()} says, and the exception reaches the caller unchanged.
     */
    Class<? extends Throwable>[] pauseOn() default {};

    /**
     * What this call does when the store cannot decide it, overriding the limiter's policy
     * ({@code zae.limiter.on-unavailable}) for this annotation: {@code onUnavailable = Unavailable.BLOCK} fails the
     * call with {@link dev.zaelimiter.StoreUnavailableException} (a login that must fail closed),
     * {@code Unavailable.ALLOW} runs the method without a recorded lease (a read that may fail open). Empty (the
     * default) keeps the limiter's. At most one value (checked at startup). See
     * {@link dev.zaelimiter.AcquireRequest#onUnavailable}.
     */
    dev.zaelimiter.Unavailable[] onUnavailable() default {};

    /** Holds several {@link RateLimited} annotations on one method or class; written implicitly by repeating them. */
    @Target({ElementType.METHOD, ElementType.TYPE})
    @Retention(RetentionPolicy.RUNTIME)
    @Documented
    @interface List {

        RateLimited[] value();
    }
}
