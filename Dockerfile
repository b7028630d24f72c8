FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
ENV NODE_ENV=production PORT=3000
EXPOSE 3000
# SIGTERM reaches node directly: in-flight requests finish, then the pool closes.
CMD ["node", "--import", "tsx", "src/main.ts"]
