package dev.zaelimiter.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How many tokens of one limit a {@link RateLimited} call consumes.
 *
 * <pre>{@code
 * @RateLimited(resource = "gpt-4", entity = "#apiKey",
 *         consume = {@Consume(limit = "rpm"), @Consume(limit = "tpm", amount = "#maxTokens")})
 * }</pre>
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Consume {

    /** The name of the limit, such as {@code "rpm"}. */
    String limit();

    /**
     * The number of tokens: a whole number such as {@code "1"} or {@code "500"} (read once, no expression involved),
     * or a SpEL expression over the arguments and beans, as for {@link RateLimited#entity()}, such as
     * {@code "#maxTokens"} or {@code "#request.messages.size()"}. The expression must give a whole number, zero or
     * more; {@code null} or a fraction raises {@link dev.zaelimiter.ValidationException}.
     */
    String amount() default "1";
}
