package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.Lease;
import dev.zaelimiter.LeaseClosedException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.spring.RateLimitContext;
import dev.zaelimiter.spring.RateLimited;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.expression.spel.support.StandardTypeLocator;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Applies {@link RateLimited}: evaluates the entities and amounts of every annotation of the method, acquires the
 * leases in declaration order, runs the method with the leases in {@link RateLimitContext}, and ends the leases in
 * reverse order: closed when the method returns, rolled back when it throws an exception its annotation names in
 * {@link RateLimited#rollbackOn()}. For a method returning a {@code CompletionStage} the leases end when the stage
 * completes.
 *
 * <p>The per-call work is the cached lookup of the compiled annotations, the evaluation of expressions that are not
 * plain argument references (with a context sharing its resolvers with one long-lived context), and the limiter.
 */
public class RateLimitedInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(RateLimitedInterceptor.class);

    private final Supplier<RateLimiter> limiterSupplier;
    private final RateLimitedOperationSource source;
    private final EvaluationContext shared;
    private volatile RateLimiter limiter;
    private final BeanFactory beanFactory;
    /** Made on the first call of a method returning Mono or Flux, so Reactor is needed only by those who use it. */
    private volatile ReactiveRateLimitedCalls reactive;

    /**
     * An interceptor that looks the limiter up on the first call, so that creating the interceptor (which happens
     * early, while the proxy infrastructure starts) does not create the limiter and its dependencies before their
     * post-processors exist.
     *
     * @param beanFactory resolves {@code @beanName} in expressions; {@code null} for none
     */
    public RateLimitedInterceptor(Supplier<RateLimiter> limiter, RateLimitedOperationSource source,
            BeanFactory beanFactory) {
        this.limiterSupplier = Objects.requireNonNull(limiter, "limiter");
        this.source = Objects.requireNonNull(source, "source");
        this.shared = sharedContext(beanFactory);
        this.beanFactory = beanFactory;
    }

    private static EvaluationContext sharedContext(BeanFactory beanFactory) {
        StandardEvaluationContext context = new StandardEvaluationContext();
        if (beanFactory != null) {
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
            if (beanFactory instanceof ConfigurableBeanFactory configurable
                    && configurable.getBeanClassLoader() != null) {
                context.setTypeLocator(new StandardTypeLocator(configurable.getBeanClassLoader()));
            }
        }
        // create the lazily built members now, so that the threads sharing the context only read them
        context.getPropertyAccessors();
        context.getIndexAccessors();
        context.getConstructorResolvers();
        context.getMethodResolvers();
        context.getTypeLocator();
        context.getTypeConverter();
        context.getTypeComparator();
        context.getOperatorOverloader();
        return context;
    }

    /** The compiled annotations this interceptor reads. */
    public RateLimitedOperationSource getOperationSource() {
        return source;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        Object target = invocation.getThis();
        RateLimitedMethod limited = source.get(method, target != null ? target.getClass() : method.getDeclaringClass());
        if (limited == null) {
            return invocation.proceed();
        }
        RateLimitedMethod.Operation[] operations = limited.operations;
        int count = operations.length;

        // evaluate everything first: a bad expression or argument fails before anything is spent
        Object[] args = invocation.getArguments();
        RateLimitedMethod.Invocation call = limited.hasExpressions
                ? new RateLimitedMethod.Invocation(limited, target, args, shared) : null;
        if (count == 1 && limited.async == RateLimitedMethod.Async.NONE) {
            return invokeOne(invocation, operations, args, call);
        }
        String[] entities = new String[count];
        @SuppressWarnings("unchecked")
        Map<String, Long>[] amounts = new Map[count];
        for (int i = 0; i < count; i++) {
            entities[i] = operations[i].entityId(args, call);
            amounts[i] = operations[i].amounts(args, call);
        }

        if (limited.async == RateLimitedMethod.Async.REACTIVE) {
            return reactive().invoke(invocation, limited, entities, amounts);
        }
        RateLimiter rateLimiter = limiter();
        Lease[] leases = new Lease[count];
        for (int i = 0; i < count; i++) {
            try {
                RateLimitedMethod.Operation operation = operations[i];
                leases[i] = operation.needsRequest()
                        ? rateLimiter.acquire(operation.request(entities[i], amounts[i]))
                        : rateLimiter.acquire(entities[i], operation.resource, amounts[i]);
            } catch (Throwable rejected) {
                for (int j = i - 1; j >= 0; j--) {
                    rollback(leases[j], rejected);
                }
                throw rejected;
            }
        }

        RateLimitContext.Scope[] scopes = new RateLimitContext.Scope[count];
        for (int i = 0; i < count; i++) {
            scopes[i] = RateLimitContext.open(operations[i].resource, leases[i]);
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            close(scopes);
            end(operations, leases, failure);
            if (UpstreamPauses.any(operations)) {
                UpstreamPauses.after(rateLimiter, operations, failure);
            }
            throw failure;
        }
        close(scopes);

        if (limited.async != RateLimitedMethod.Async.NONE && result instanceof CompletionStage<?> stage) {
            if (UpstreamPauses.any(operations)) {
                stage = stage.whenComplete((value, failure) -> UpstreamPauses.after(rateLimiter, operations, failure));
            }
            if (limited.async == RateLimitedMethod.Async.DEPENDENT_STAGE) {
                return stage.whenComplete((value, failure) -> endAfterCompletion(limited, leases, failure));
            }
            stage.whenComplete((value, failure) -> endAfterCompletion(limited, leases, failure));
            return result;
        }
        end(operations, leases, null);
        return result;
    }

    /**
     * {@link #invoke} for the usual method: one annotation and a plain return type. The same steps without the
     * arrays that several leases need.
     */
    private Object invokeOne(MethodInvocation invocation, RateLimitedMethod.Operation[] operations, Object[] args,
            RateLimitedMethod.Invocation call) throws Throwable {
        RateLimitedMethod.Operation operation = operations[0];
        String entity = operation.entityId(args, call);
        Map<String, Long> amounts = operation.amounts(args, call);
        RateLimiter rateLimiter = limiter();
        Lease lease = operation.needsRequest()
                ? rateLimiter.acquire(operation.request(entity, amounts))
                : rateLimiter.acquire(entity, operation.resource, amounts);
        RateLimitContext.Scope scope = RateLimitContext.open(operation.resource, lease);
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            scope.close();
            end(operation, lease, failure);
            if (operation.pauseOn.length > 0) {
                UpstreamPauses.after(rateLimiter, operations, failure);
            }
            throw failure;
        }
        scope.close();
        lease.close();
        return result;
    }

    private RateLimiter limiter() {
        RateLimiter current = limiter;
        if (current == null) {
            current = Objects.requireNonNull(limiterSupplier.get(), "the RateLimiter supplier returned null");
            limiter = current;
        }
        return current;
    }

    private ReactiveRateLimitedCalls reactive() {
        ReactiveRateLimitedCalls current = reactive;
        if (current == null) {
            current = new ReactiveRateLimitedCalls(this::limiter, beanFactory);
            reactive = current;
        }
        return current;
    }

    private static void close(RateLimitContext.Scope[] scopes) {
        for (int i = scopes.length - 1; i >= 0; i--) {
            scopes[i].close();
        }
    }

    /**
     * Ends the leases in reverse order: rolled back when {@code failure} matches their annotation, closed otherwise.
     * A failed rollback is attached to {@code failure} as suppressed.
     */
    private static void end(RateLimitedMethod.Operation[] operations, Lease[] leases, Throwable failure) {
        for (int i = leases.length - 1; i >= 0; i--) {
            end(operations[i], leases[i], failure);
        }
    }

    private static void end(RateLimitedMethod.Operation operation, Lease lease, Throwable failure) {
        if (failure != null && operation.rollsBackOn(failure)) {
            rollback(lease, failure);
        } else {
            lease.close();
        }
    }

    /** Rolls back; a lease the method already ended is left alone, another failure is added to {@code cause}. */
    private static void rollback(Lease lease, Throwable cause) {
        try {
            lease.rollback();
        } catch (LeaseClosedException alreadyEnded) {
            // the method closed or rolled back the lease itself
        } catch (RuntimeException | Error e) {
            if (e != cause) {
                cause.addSuppressed(e);
            }
        }
    }

    /**
     * Ends the leases once the returned future has completed. Runs on the thread that completes the future and must
     * not throw (the stage handed to the caller would fail): a failed rollback is logged.
     */
    private static void endAfterCompletion(RateLimitedMethod limited, Lease[] leases, Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        RateLimitedMethod.Operation[] operations = limited.operations;
        for (int i = leases.length - 1; i >= 0; i--) {
            try {
                if (cause != null && operations[i].rollsBackOn(cause)) {
                    leases[i].rollback();
                } else {
                    leases[i].close();
                }
            } catch (LeaseClosedException alreadyEnded) {
                // the method closed or rolled back the lease itself
            } catch (RuntimeException | Error e) {
                log.warn("could not end the lease of {} after its future completed", operations[i].where, e);
            }
        }
    }
}
