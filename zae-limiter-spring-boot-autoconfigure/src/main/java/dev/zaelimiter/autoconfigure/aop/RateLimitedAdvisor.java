package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.spring.RateLimited;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationUtils;

import java.lang.reflect.Method;
import java.util.Objects;

/**
 * Applies the {@link RateLimitedInterceptor} to the methods that {@link RateLimited} covers, as Spring's own
 * {@code @Cacheable} and {@code @Transactional} support does with their interceptors. Whether a method is covered is
 * decided once per method, while the proxy is created and when the method is first called.
 *
 * <p>Its {@linkplain #getOrder() order} defaults to {@link #DEFAULT_ORDER}, which puts it outside
 * {@code @Transactional} and {@code @Cacheable} (both lowest precedence by default): a rejected call opens no
 * transaction. Set {@code zae.limiter.aop.order} to change it.
 */
public class RateLimitedAdvisor extends AbstractPointcutAdvisor {

    /** Just before the lowest precedence, where resilience4j also puts its rate limiter. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 2;

    private final transient RateLimitedInterceptor interceptor;
    private final transient Pointcut pointcut;

    public RateLimitedAdvisor(RateLimitedInterceptor interceptor) {
        this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
        this.pointcut = new RateLimitedPointcut(interceptor.getOperationSource());
        setOrder(DEFAULT_ORDER);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    /** Matches the methods the operation source finds {@link RateLimited} annotations for. */
    static final class RateLimitedPointcut extends StaticMethodMatcherPointcut {

        private final RateLimitedOperationSource source;

        RateLimitedPointcut(RateLimitedOperationSource source) {
            this.source = source;
            setClassFilter(type -> AnnotationUtils.isCandidateClass(type, RateLimited.class));
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return source.isRateLimited(method, targetClass);
        }
    }
}
