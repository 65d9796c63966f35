# switchboard: one image for the web and worker roles. Node runs the TypeScript sources directly.
FROM node:24-bookworm-slim
WORKDIR /app
# WHATSAPP_MODE=web drives Debian's chromium (never a browser downloaded by npm): build with
# --build-arg WITH_CHROMIUM=true to include it.
ARG WITH_CHROMIUM=false
RUN if [ "$WITH_CHROMIUM" = "true" ]; then apt-get update && apt-get install -y --no-install-recommends chromium && rm -rf /var/lib/apt/lists/*; fi
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
EXPOSE 3000
ENTRYPOINT ["node", "bin/switchboard.js"]
CMD ["start", "--role", "all"]
